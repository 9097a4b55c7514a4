// Command mcpgo is a bare mark3labs/mcp-go server for bench/mcpbench: the
// same typed status tool as mcpbench's bare go-sdk server, served over
// stateless Streamable HTTP with the library's defaults, and nothing in
// front (no auth, no audit).
//
// It listens on a fresh loopback port, prints its URL on stdout and serves
// until its stdin closes. Each line "stats" on stdin is answered on stdout
// with the process's allocation counters, "<mallocs> <total alloc bytes>",
// so that mcpbench can count the server's allocations per call as it does
// for the servers in its own process.
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"runtime"
	"runtime/debug"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

func main() {
	schemaVersion := flag.Int("schema-version", 0, "schema_version to put in the status result, so its size matches Switchboard's")
	version := flag.String("version", "mcpbench", "server version to put in the status result")
	printVersion := flag.Bool("print-mcp-go-version", false, "print the mark3labs/mcp-go version this binary was built with, and exit")
	flag.Parse()
	if *printVersion {
		fmt.Println(mcpGoVersion())
		return
	}
	if err := run(*schemaVersion, *version); err != nil {
		fmt.Fprintln(os.Stderr, "mcpgo:", err)
		os.Exit(1)
	}
}

// statusOut and the types below mirror mcpbench's (bench/mcpbench/servers.go),
// which mirror what Switchboard's status tool puts in structuredContent: the
// same fields, so every server encodes a result of the same size.
type statusOut struct {
	OK      bool         `json:"ok"`
	Method  string       `json:"method"`
	AuditID string       `json:"audit_id"`
	Result  statusResult `json:"result"`
}

type statusResult struct {
	Version       string       `json:"version"`
	Running       bool         `json:"running"`
	Endpoint      string       `json:"endpoint,omitempty"`
	Keyring       string       `json:"keyring"`
	SchemaVersion int          `json:"schema_version"`
	Counts        statusCounts `json:"counts"`
	Principal     string       `json:"principal"`
}

type statusCounts struct {
	Repositories int `json:"repositories"`
	Tokens       int `json:"tokens"`
	LiveTokens   int `json:"live_tokens"`
	AuditRecords int `json:"audit_records"`
}

// mcpGoVersion is the version of mark3labs/mcp-go built into this binary.
func mcpGoVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, m := range bi.Deps {
			if m.Path == "github.com/mark3labs/mcp-go" {
				return m.Version
			}
		}
	}
	return "unknown"
}

// noArgs is the status tool's (empty) input.
type noArgs struct{}

func newHandler(schemaVersion int, version string) http.Handler {
	s := server.NewMCPServer("bare-mcp-go", version, server.WithToolCapabilities(false))
	var seq atomic.Uint64
	tool := mcp.NewTool("status",
		mcp.WithDescription("A status of Switchboard's size."),
		mcp.WithOutputSchema[statusOut]())
	s.AddTool(tool, mcp.NewStructuredToolHandler(func(context.Context, mcp.CallToolRequest, noArgs) (statusOut, error) {
		n := seq.Add(1)
		return statusOut{
			OK:      true,
			Method:  "status",
			AuditID: fmt.Sprintf("aud_%016x", n),
			Result: statusResult{
				Version:       version,
				Running:       true,
				Endpoint:      "http://127.0.0.1:49152/mcp",
				Keyring:       "unavailable",
				SchemaVersion: schemaVersion,
				Counts:        statusCounts{Tokens: 1, LiveTokens: 1, AuditRecords: int(n)},
				Principal:     "token 0123456789abcdef",
			},
		}, nil
	}))
	// Stateless: no session id is minted or asked for, so a tools/call
	// needs no initialize first, like the other servers mcpbench loads.
	return server.NewStreamableHTTPServer(s, server.WithStateLess(true))
}

func run(schemaVersion int, version string) error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", newHandler(schemaVersion, version))
	// The timeouts of Switchboard's server (mcpserver.NewServer); none of
	// them comes into play under the benchmark's load.
	srv := &http.Server{
		Handler:           mux,
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      90 * time.Second,
		IdleTimeout:       2 * time.Minute,
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	if _, err := fmt.Printf("http://%s/mcp\n", ln.Addr()); err != nil {
		srv.Close()
		return err
	}
	// The parent asks for stats, and closes stdin to stop us.
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		if in.Text() != "stats" {
			continue
		}
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		fmt.Printf("%d %d\n", m.Mallocs, m.TotalAlloc)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err = srv.Shutdown(ctx)
	if serr := <-done; !errors.Is(serr, http.ErrServerClosed) {
		err = errors.Join(err, serr)
	}
	return err
}
