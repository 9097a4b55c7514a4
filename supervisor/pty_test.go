package supervisor

import (
	"bytes"
	"context"
	"io"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// readUntil reads from r until want appears or the deadline passes.
func readUntil(t *testing.T, r io.Reader, want string) string {
	t.Helper()
	var buf bytes.Buffer
	found := make(chan struct{})
	go func() {
		b := make([]byte, 4096)
		for {
			n, err := r.Read(b)
			buf.Write(b[:n])
			if strings.Contains(buf.String(), want) {
				close(found)
				return
			}
			if err != nil {
				return
			}
		}
	}()
	end, stop := nearDeadline(t)
	defer stop()
	select {
	case <-found:
		return buf.String()
	case <-end:
		t.Fatalf("no %q in the terminal output", want)
		return ""
	}
}

func TestStartSizeResizeAndExitCode(t *testing.T) {
	p, err := Start(Spec{
		Path: "/bin/sh",
		Args: []string{"-c", `stty size; printf 'pgid=%s\n' "$(ps -o pgid= $$ | tr -d ' ')"; read line; stty size; exit 7`},
		Env:  append(os.Environ(), "TERM=xterm-256color"),
		Cols: 100, Rows: 30,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	out := readUntil(t, p.PTY(), "pgid=")
	if !strings.Contains(out, "30 100") {
		t.Fatalf("child saw size %q, want 30 100", out)
	}
	if err := p.Resize(120, 40); err != nil {
		t.Fatal(err)
	}
	p.PTY().Write([]byte("go\n"))
	readUntil(t, p.PTY(), "40 120")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	code, err := p.Wait(ctx)
	if err != nil || code != 7 {
		t.Fatalf("exit code %d, %v; want 7", code, err)
	}
}

func TestSignalGroupReachesGrandchildren(t *testing.T) {
	p, err := Start(Spec{Path: "/bin/sh", Args: []string{"-c", "sleep 60 & sleep 60 & echo started; wait"}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	readUntil(t, p.PTY(), "started")
	if err := p.SignalGroup(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if code, err := p.Wait(ctx); err != nil || code != -1 {
		t.Fatalf("exit %d, %v; want killed (-1)", code, err)
	}
	// Nobody of the group is left running. Orphans may linger as zombies
	// where PID 1 does not reap (containers), so zombies do not count.
	if !eventually(t, func() bool { return liveInGroup(p.PID()) == 0 }) {
		t.Fatalf("%d processes of the group still run after SIGKILL", liveInGroup(p.PID()))
	}
}

// liveInGroup counts non-zombie processes in process group pgid, from /proc.
func liveInGroup(pgid int) int {
	ents, _ := os.ReadDir("/proc")
	n := 0
	for _, e := range ents {
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid pgrp ...; comm may hold spaces, so cut at
		// the last ')'.
		s := string(b)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(f) > 2 && f[2] == strconv.Itoa(pgid) && f[0] != "Z" {
			n++
		}
	}
	return n
}
