// Command standin plays an agent CLI in the supervisor's tests: it prints
// what the supervisor gave it, calls the MCP endpoint with its token file,
// draws with colour and cursor movement, and echoes what it is typed.
//
//	standin agent          env, an MCP call, a drawing, then echo input lines
//	standin flood BYTES    write BYTES of output as fast as it can, then exit
//	standin burst BYTES    write BYTES, then BURST-DONE, then wait to be killed
//	standin stubborn       ignore SIGINT and SIGTERM and wait to be killed
//	standin bracketed      turn on bracketed paste, echo input lines
//	standin exit CODE      exit with CODE
//	standin worker FILE TEXT  do a packet over MCP: TEXT into FILE (worker.go)
//	standin notify         send OSC 9 and OSC 777 notifications, echo input (notify.go)
package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/switchboard-dev/switchboard/supervisor/internal/flood"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: standin agent|flood|stubborn|bracketed|exit|worker")
		os.Exit(2)
	}
	switch os.Args[1] {
	case "agent":
		agent()
	case "flood":
		n, _ := strconv.Atoi(os.Args[2])
		flood.Write(os.Stdout, n)
	case "burst":
		// A burst, then a marker line, then quiet until killed: how long
		// the screen takes to show the marker is the emulator's lag.
		n, _ := strconv.Atoi(os.Args[2])
		flood.Write(os.Stdout, n)
		fmt.Print("\r\nBURST-DONE\r\n")
		for {
			time.Sleep(time.Hour)
		}
	case "stubborn":
		signal.Ignore(syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
		fmt.Println("ignoring signals")
		for {
			time.Sleep(time.Hour)
		}
	case "notify":
		notify()
	case "bracketed":
		fmt.Print("\x1b[?2004hready> ")
		echo()
	case "worker":
		if len(os.Args) < 4 {
			fmt.Fprintln(os.Stderr, "usage: standin worker FILE TEXT")
			os.Exit(2)
		}
		worker(os.Args[2], os.Args[3])
	case "exit":
		code, _ := strconv.Atoi(os.Args[2])
		fmt.Println("bye")
		os.Exit(code)
	}
}

func agent() {
	for _, name := range []string{"SWITCHBOARD_MCP_URL", "SWITCHBOARD_SESSION_ID", "SWITCHBOARD_REPOSITORY_ID", "TERM"} {
		fmt.Printf("%s=%s\r\n", name, os.Getenv(name))
	}
	_, hasToken := os.LookupEnv("SWITCHBOARD_MCP_TOKEN")
	fmt.Printf("TOKEN_ENV=%v\r\n", hasToken)
	wd, _ := os.Getwd()
	fmt.Printf("PWD=%s\r\n", wd)
	if args := os.Args[2:]; len(args) > 0 {
		fmt.Printf("ARGS=%s\r\n", strings.Join(args, "|"))
	}
	token, err := os.ReadFile(os.Getenv("SWITCHBOARD_MCP_TOKEN_FILE"))
	if err != nil {
		fmt.Printf("TOKEN_FILE_ERROR=%v\r\n", err)
	} else {
		fmt.Printf("MCP=%s\r\n", call(os.Getenv("SWITCHBOARD_MCP_URL"), string(token)))
	}
	// Colour, bold, a wide character, and a cursor dance that leaves
	// "DRAWN" on the screen only if movement is emulated.
	fmt.Print("\x1b[1;31mRED\x1b[0m \x1b[38;5;42m256\x1b[0m 日本\r\n")
	fmt.Print("XXXXX\x1b[5D\x1b[32mDRAWN\x1b[0m\r\n")
	fmt.Print("> ")
	echo()
}

// echo prints each line typed until EOF.
func echo() {
	r := bufio.NewReader(os.Stdin)
	for {
		line, err := r.ReadString('\n')
		if line != "" {
			line = strings.TrimRight(line, "\r\n")
			line = strings.ReplaceAll(line, "\x1b[200~", "<paste>")
			line = strings.ReplaceAll(line, "\x1b[201~", "</paste>")
			fmt.Printf("\r\nGOT %s\r\n> ", line)
		}
		if err != nil {
			return
		}
	}
}

// call makes one tools/call status over streamable HTTP with the token.
func call(url, token string) string {
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"status","arguments":{}}}`
	req, err := http.NewRequest("POST", url, strings.NewReader(body))
	if err != nil {
		return "error " + err.Error()
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2025-06-18")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "error " + err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
	switch {
	case resp.StatusCode != 200:
		return fmt.Sprintf("http %d", resp.StatusCode)
	case bytes.Contains(b, []byte(`"ok":true`)):
		return "ok"
	}
	return "refused"
}
