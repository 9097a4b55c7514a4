package app

import (
	"testing"
	"time"
)

func TestParseAuditTime(t *testing.T) {
	now := time.Date(2026, 11, 30, 14, 0, 0, 0, time.Local)
	for in, want := range map[string]time.Time{
		"":                 {},
		"now":              now,
		"-1h":              now.Add(-time.Hour),
		"-2d":              now.AddDate(0, 0, -2),
		"2026-11-30 13:05": time.Date(2026, 11, 30, 13, 5, 0, 0, time.Local),
		"2026-11-29":       time.Date(2026, 11, 29, 0, 0, 0, 0, time.Local),
	} {
		got, err := parseAuditTime(in, now)
		if err != nil || !got.Equal(want) {
			t.Errorf("parseAuditTime(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	if _, err := parseAuditTime("yesterday-ish", now); err == nil {
		t.Error("nonsense time accepted")
	}
}

func TestMethodWords(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ name, want string }{
		{"work.await_packet", "Work: await packet"},
		{"client_token.rotate", "Client token: rotate"},
		{"tools.search", "Tools: search"},
		{"odd", "odd"},
	} {
		if got := methodWords(tt.name); got != tt.want {
			t.Errorf("methodWords(%q) = %q, want %q", tt.name, got, tt.want)
		}
	}
}
