package main

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"time"
)

// notify plays an agent that asks for attention the way agent CLIs do,
// with desktop-notification escape sequences: an OSC 9 (ended by BEL) and
// an OSC 777 (ended by ST), then NOTIFIED, then it echoes input lines. The
// line "later" makes it notify again and, a second later, print MOVED ON
// by itself, as an agent that stopped waiting does.
func notify() {
	fmt.Print("thinking\r\n")
	fmt.Print("\x1b]9;standin needs you\x07")
	fmt.Print("\x1b]777;notify;Stand-in;Approve the plan?\x1b\\")
	fmt.Print("NOTIFIED\r\n> ")
	r := bufio.NewReader(os.Stdin)
	for {
		line, err := r.ReadString('\n')
		if line != "" {
			line = strings.TrimRight(line, "\r\n")
			fmt.Printf("\r\nGOT %s\r\n> ", line)
			if line == "later" {
				fmt.Print("\x1b]9;again\x07")
				time.Sleep(time.Second)
				fmt.Print("MOVED ON\r\n> ")
			}
		}
		if err != nil {
			return
		}
	}
}
