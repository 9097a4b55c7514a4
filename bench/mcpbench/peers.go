package main

// Servers in child processes: the net/http target of the client-only rows,
// the bare mark3labs/mcp-go server of bench/peers, and (daemon.go) the real
// switchboard binary. A child's CPU is read from /proc/<pid>/stat and added
// to the cells' CPU, so that CPU/call counts client and server whichever
// process the server runs in; the mcp-go peer also reports its allocation
// counters when asked, so its alloc columns count both sides too.

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/switchboard-dev/switchboard/store"
)

// serverMCPGo is mark3labs/mcp-go, built from bench/peers.
const serverMCPGo = "mcp-go"

// child is a server in a child process: it prints its URL as its first
// line on stdout and stops when its stdin closes.
type child struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout *bufio.Reader
	url    string
}

func startChild(exe string, args ...string) (*child, error) {
	cmd := exec.Command(exe, args...)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	c := &child{cmd: cmd, stdin: stdin, stdout: bufio.NewReader(stdout)}
	line, err := c.stdout.ReadString('\n')
	if err != nil {
		c.close()
		return nil, fmt.Errorf("%s did not say where it listens: %w", filepath.Base(exe), err)
	}
	c.url = strings.TrimSpace(line)
	return c, nil
}

// close closes the child's stdin, its signal to stop, and waits for it.
func (c *child) close() error {
	c.stdin.Close()
	return c.cmd.Wait()
}

func (c *child) pid() int { return c.cmd.Process.Pid }

// memStats asks the child for its allocation counters (bench/peers
// protocol: a line "stats" in, "<mallocs> <total bytes>" out).
func (c *child) memStats() (mallocs, bytes uint64, err error) {
	if _, err := io.WriteString(c.stdin, "stats\n"); err != nil {
		return 0, 0, err
	}
	line, err := c.stdout.ReadString('\n')
	if err != nil {
		return 0, 0, fmt.Errorf("reading the child's stats: %w", err)
	}
	if _, err := fmt.Sscan(line, &mallocs, &bytes); err != nil {
		return 0, 0, fmt.Errorf("child's stats %q: %w", line, err)
	}
	return mallocs, bytes, nil
}

// peerBinaries are bench/peers's commands, built for this run.
type peerBinaries struct {
	mcpGo        string
	mcpGoVersion string        // the mark3labs/mcp-go built into it
	built        time.Duration // how long `go build` took
}

// buildPeers builds bench/peers's commands into dir. bench/peers is a module
// of its own, so the product never depends on what it measures itself
// against.
func buildPeers(root, dir string) (peerBinaries, error) {
	start := time.Now()
	out := filepath.Join(dir, "mcpgo")
	if err := goBuild(filepath.Join(root, "bench", "peers"), out, "./mcpgo", false); err != nil {
		return peerBinaries{}, fmt.Errorf("build bench/peers/mcpgo: %w", err)
	}
	built := time.Since(start)
	v, err := exec.Command(out, "-print-mcp-go-version").Output()
	if err != nil {
		return peerBinaries{}, fmt.Errorf("bench/peers/mcpgo -print-mcp-go-version: %w", err)
	}
	return peerBinaries{mcpGo: out, mcpGoVersion: strings.TrimSpace(string(v)), built: built}, nil
}

// goBuild runs `go build -o out pkg` in dir, with or without cgo.
func goBuild(dir, out, pkg string, cgo bool) error {
	cmd := exec.Command("go", "build", "-o", out, pkg)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "CGO_ENABLED="+map[bool]string{true: "1", false: "0"}[cgo])
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stderr, &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%w\n%s", err, stderr.Bytes())
	}
	return nil
}

// startMCPGo runs the mcp-go peer.
func startMCPGo(bin string) (*target, error) {
	c, err := startChild(bin, "-schema-version", strconv.Itoa(store.SchemaVersion()), "-version", benchVersion)
	if err != nil {
		return nil, err
	}
	return &target{name: serverMCPGo, url: c.url, pid: c.pid(), memStats: c.memStats, close: c.close}, nil
}
