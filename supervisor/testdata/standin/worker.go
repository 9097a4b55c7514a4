package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// worker plays an agent that does packets over MCP in its worktree:
//
//	standin worker FILE TEXT
//
// It claims one fresh packet (work_await_packet), writes TEXT as the whole
// of FILE and completes it; Switchboard commits the change. Then it
// watches that packet (work_get) rather than claiming more: when it is
// sent back with request_changes, it claims it again (the packet is held
// for its session), rebases its branch onto the base and, on a conflict,
// resolves it by keeping the base's FILE with TEXT added, and completes
// again. Once its packet has landed it waits for work again. So two
// workers on one queue do one packet each whichever claims first, and a
// worker whose packet landed is waiting when the other's is sent back: a
// claim that ignored the hold would hand it the packet.
//
// Every step is printed: stdout is the agent's terminal, which the
// session's recording keeps.
func worker(file, text string) {
	w, err := newWorkerClient()
	if err != nil {
		say("worker: %v", err)
		idle()
	}
	ctx := context.Background()
	var mine string // the packet it did
	for {
		if mine != "" && !w.waitSentBack(ctx, mine) {
			say("worker: %s landed; waiting for more work", mine)
			mine = ""
		}
		claim, err := w.await(ctx)
		if err != nil {
			say("worker: work_await_packet: %v", err)
			time.Sleep(time.Second)
			continue
		}
		if claim.Packet == nil {
			say("worker: no packet yet")
			continue
		}
		say("worker: claimed %s %q (attempt %d) lease %s", claim.Packet.ID, claim.Packet.Title, claim.Packet.Attempt, claim.LeaseID)
		if mine != "" && claim.Packet.ID != mine {
			// Not ours: the hold did not take. Give it back and say so.
			say("worker: expected my sent-back packet %s, got %s; releasing it", mine, claim.Packet.ID)
			w.tool(ctx, "work_release", map[string]any{"packet_id": claim.Packet.ID, "lease_id": claim.LeaseID, "summary": "this worker does one packet"}, nil)
			continue
		}
		dir, _ := os.Getwd()
		if claim.Workspace != nil {
			say("worker: workspace %s on %s from %s", claim.Workspace.Path, claim.Workspace.Branch, claim.Workspace.BaseBranch)
		}
		if r := claim.Packet.Review; r != nil && r.Verdict == "request_changes" {
			say("worker: sent back: %q", r.Notes)
			base := os.Getenv("SWITCHBOARD_BASE")
			if base == "" && claim.Workspace != nil {
				base = claim.Workspace.BaseBranch
			}
			if err := rebase(dir, base, file, text); err != nil {
				say("worker: %v", err)
				w.tool(ctx, "work_release", map[string]any{"packet_id": claim.Packet.ID, "lease_id": claim.LeaseID, "summary": err.Error()}, nil)
				idle()
			}
		} else {
			if err := os.WriteFile(filepath.Join(dir, file), []byte(text+"\n"), 0o644); err != nil {
				say("worker: writing %s: %v", file, err)
				idle()
			}
			say("worker: wrote %q to %s", text, file)
		}
		var done struct {
			Packet struct {
				State   string `json:"state"`
				Changes *struct {
					From string `json:"from"`
					To   string `json:"to"`
				} `json:"changes"`
			} `json:"packet"`
		}
		if err := w.tool(ctx, "work_complete", map[string]any{"packet_id": claim.Packet.ID, "lease_id": claim.LeaseID, "summary": "wrote " + file}, &done); err != nil {
			say("worker: work_complete: %v", err)
			idle()
		}
		say("worker: completed %s: %s %+v", claim.Packet.ID, done.Packet.State, done.Packet.Changes)
		mine = claim.Packet.ID
	}
}

// rebase brings the worktree's branch onto base; a conflict in file is
// resolved by keeping base's file with text added.
func rebase(dir, base, file, text string) error {
	if base == "" {
		return errors.New("no base branch to rebase onto")
	}
	out, err := gitIn(dir, "rebase", base)
	say("worker: git rebase %s: %v\r\n%s", base, err, crlf(out))
	if err == nil {
		return nil
	}
	theirs, err := gitIn(dir, "show", base+":"+file)
	if err != nil {
		return fmt.Errorf("reading %s on %s: %v: %s", file, base, err, crlf(theirs))
	}
	resolved := theirs
	if !strings.HasSuffix(resolved, "\n") {
		resolved += "\n"
	}
	resolved += text + "\n"
	if err := os.WriteFile(filepath.Join(dir, file), []byte(resolved), 0o644); err != nil {
		return fmt.Errorf("writing the resolution: %w", err)
	}
	say("worker: resolved %s as %q", file, resolved)
	if out, err := gitIn(dir, "add", file); err != nil {
		return fmt.Errorf("git add %s: %v: %s", file, err, crlf(out))
	}
	out, err = gitIn(dir, "-c", "core.editor=true", "rebase", "--continue")
	say("worker: git rebase --continue: %v\r\n%s", err, crlf(out))
	if err != nil {
		return fmt.Errorf("git rebase --continue: %v", err)
	}
	return nil
}

// gitIn runs git in dir with arguments, no shell, and no editor to wait
// for.
func gitIn(dir string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_EDITOR=true", "LC_ALL=C")
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// crlf makes text's line ends a terminal's.
func crlf(text string) string { return strings.ReplaceAll(text, "\n", "\r\n") }

// claim is what work_await_packet answers, as far as the worker reads it.
type claim struct {
	Packet *struct {
		ID      string `json:"id"`
		Title   string `json:"title"`
		Attempt int    `json:"attempt"`
		Review  *struct {
			Verdict string `json:"verdict"`
			Notes   string `json:"notes"`
		} `json:"review"`
	} `json:"packet"`
	LeaseID   string `json:"lease_id"`
	Workspace *struct {
		Path       string `json:"path"`
		Branch     string `json:"branch"`
		BaseBranch string `json:"base_branch"`
	} `json:"workspace"`
}

type workerClient struct {
	url, token, session, repo string
	hc                        *http.Client
}

func newWorkerClient() (*workerClient, error) {
	token, err := os.ReadFile(os.Getenv("SWITCHBOARD_MCP_TOKEN_FILE"))
	if err != nil {
		return nil, fmt.Errorf("reading the token file: %w", err)
	}
	w := &workerClient{
		url:     os.Getenv("SWITCHBOARD_MCP_URL"),
		token:   strings.TrimSpace(string(token)),
		session: os.Getenv("SWITCHBOARD_SESSION_ID"),
		repo:    os.Getenv("SWITCHBOARD_REPOSITORY_ID"),
		hc:      &http.Client{Timeout: 60 * time.Second},
	}
	if w.url == "" || w.session == "" || w.repo == "" {
		return nil, errors.New("SWITCHBOARD_MCP_URL, SWITCHBOARD_SESSION_ID or SWITCHBOARD_REPOSITORY_ID is not set")
	}
	say("worker: session %s, repository %s, endpoint %s", w.session, w.repo, w.url)
	return w, nil
}

func (w *workerClient) await(ctx context.Context) (claim, error) {
	var c claim
	err := w.tool(ctx, "work_await_packet", map[string]any{"repository_id": w.repo, "session_id": w.session, "wait_seconds": 30}, &c)
	return c, err
}

// waitSentBack polls the packet until it is queued again after a
// request_changes (true) or has landed (false).
func (w *workerClient) waitSentBack(ctx context.Context, id string) bool {
	say("worker: watching %s for a review", id)
	for {
		var got struct {
			Packet struct {
				State  string          `json:"state"`
				Landed json.RawMessage `json:"landed"`
				Review *struct {
					Verdict string `json:"verdict"`
				} `json:"review"`
			} `json:"packet"`
		}
		if err := w.tool(ctx, "work_get", map[string]any{"packet_id": id}, &got); err != nil {
			say("worker: work_get %s: %v", id, err)
		} else {
			p := got.Packet
			if len(p.Landed) > 0 && string(p.Landed) != "null" {
				return false
			}
			if p.State == "queued" && p.Review != nil && p.Review.Verdict == "request_changes" {
				return true
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// tool makes one stateless tools/call and decodes its result into v; a
// denial or a transport failure is an error.
func (w *workerClient) tool(ctx context.Context, name string, args map[string]any, v any) error {
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": map[string]any{"name": name, "arguments": args}})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, w.url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+w.token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("MCP-Protocol-Version", "2025-06-18")
	resp, err := w.hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return err
	}
	var out struct {
		Result struct {
			StructuredContent *struct {
				OK      bool            `json:"ok"`
				Error   string          `json:"error"`
				Message string          `json:"message"`
				Result  json.RawMessage `json:"result"`
			} `json:"structuredContent"`
		} `json:"result"`
	}
	if err := json.Unmarshal(b, &out); err != nil || out.Result.StructuredContent == nil {
		return fmt.Errorf("%s: HTTP %d: %.300s", name, resp.StatusCode, b)
	}
	a := out.Result.StructuredContent
	if !a.OK {
		return fmt.Errorf("%s refused: %s: %s", name, a.Error, a.Message)
	}
	if v != nil {
		return json.Unmarshal(a.Result, v)
	}
	return nil
}

// say prints one line to the terminal.
func say(format string, args ...any) {
	fmt.Printf(format+"\r\n", args...)
}

// idle waits to be stopped: an agent that has nothing to do stays.
func idle() {
	for {
		time.Sleep(time.Hour)
	}
}
