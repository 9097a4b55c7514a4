package mcpserver

import (
	"strconv"
	"strings"
	"testing"
)

func TestParseListenAddr(t *testing.T) {
	for _, c := range []struct {
		in   string
		want ListenAddr
	}{
		{"", ListenAddr{}},
		{"  ", ListenAddr{}},
		{"off", ListenAddr{Off: true}},
		{"OFF", ListenAddr{Off: true}},
		{"Off", ListenAddr{Off: true}},
		{"8765", ListenAddr{Addr: "127.0.0.1:8765"}},
		{"0", ListenAddr{Addr: "127.0.0.1:0"}},
		{"127.0.0.1:0", ListenAddr{Addr: "127.0.0.1:0"}},
		{"localhost:9", ListenAddr{Addr: "127.0.0.1:9"}},
		{"LocalHost:9", ListenAddr{Addr: "127.0.0.1:9"}},
		{"[::1]:9", ListenAddr{Addr: "[::1]:9"}},
		{"127.1.2.3:5", ListenAddr{Addr: "127.1.2.3:5"}},
		{" 127.0.0.1:7 ", ListenAddr{Addr: "127.0.0.1:7"}},
	} {
		got, err := ParseListenAddr(c.in)
		if err != nil || got != c.want {
			t.Errorf("ParseListenAddr(%q) = %+v, %v; want %+v", c.in, got, err, c.want)
		}
	}
}

func TestParseListenAddrRefuses(t *testing.T) {
	for _, in := range []string{
		"0.0.0.0:0",
		":8080", // an empty host listens on every interface
		":0",
		"192.168.1.2:80",
		"example.com:80",
		"[::]:0",
		"[::]:8080",
		"99999",
		"-1",
		"abc",
		"127.0.0.1",
		"127.0.0.1:",
		"127.0.0.1:99999",
		"127.0.0.1:http",
		"localhost",
		"[::1%lo]:9",
		"off:80",
	} {
		got, err := ParseListenAddr(in)
		if err == nil {
			t.Errorf("ParseListenAddr(%q) = %+v, want an error", in, got)
			continue
		}
		if !strings.Contains(err.Error(), "listen address "+strconv.Quote(strings.TrimSpace(in))) {
			t.Errorf("ParseListenAddr(%q) error %q does not name the address", in, err)
		}
	}
}
