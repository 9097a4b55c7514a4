package mcpserver

import (
	"fmt"
	"net"
	"strconv"
	"strings"
)

// ListenAddr is where the MCP HTTP listener binds: the parsed
// --mcp-http-addr, or the address saved in Settings.
type ListenAddr struct {
	// Off disables the listener.
	Off bool
	// Addr is host:port; empty means "the default": loopback on the port
	// remembered from the last run when free, else an ephemeral one.
	Addr string
}

// ParseListenAddr applies the rules of SPEC §2: "off"; a bare port means
// 127.0.0.1:PORT; otherwise host:port whose host is a loopback address or
// "localhost". Anything else is refused: an MCP endpoint reachable from the
// network would hand work and tokens to strangers.
func ParseListenAddr(s string) (ListenAddr, error) {
	s = strings.TrimSpace(s)
	switch {
	case s == "":
		return ListenAddr{}, nil
	case strings.EqualFold(s, "off"):
		return ListenAddr{Off: true}, nil
	}
	if port, err := strconv.ParseUint(s, 10, 16); err == nil {
		return ListenAddr{Addr: net.JoinHostPort("127.0.0.1", strconv.FormatUint(port, 10))}, nil
	}
	host, port, err := net.SplitHostPort(s)
	if err != nil {
		return ListenAddr{}, fmt.Errorf("listen address %q: want a port, host:port or off", s)
	}
	if _, err := strconv.ParseUint(port, 10, 16); err != nil {
		return ListenAddr{}, fmt.Errorf("listen address %q: bad port", s)
	}
	if strings.EqualFold(host, "localhost") {
		host = "127.0.0.1"
	}
	ip := net.ParseIP(host)
	if ip == nil || !ip.IsLoopback() {
		return ListenAddr{}, fmt.Errorf("listen address %q: refusing a non-loopback address; Switchboard serves this machine only", s)
	}
	return ListenAddr{Addr: net.JoinHostPort(ip.String(), port)}, nil
}
