// Package peers holds the other MCP servers bench/mcpbench measures
// Switchboard against, in a module of their own so that the product never
// depends on them. Each is a command that serves one status tool on a
// loopback port, prints its URL on stdout and runs until its stdin closes;
// mcpbench builds them with `go build` at the start of a run and runs them as
// child processes.
package peers
