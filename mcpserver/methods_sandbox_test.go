package mcpserver

import (
	"slices"
	"strings"
	"testing"
)

func TestNormalizeSandbox(t *testing.T) {
	tests := []struct {
		name string
		in   SandboxSettings
		want []string // the hidden paths kept
		err  string   // a piece of the refusal, "" for none
	}{
		{"empty", SandboxSettings{}, []string{}, ""},
		{"cleaned, no duplicates, in order", SandboxSettings{Hidden: []string{"/srv/x/", "/a/../b", "/srv/x"}}, []string{"/srv/x", "/b"}, ""},
		{"relative", SandboxSettings{Hidden: []string{"srv"}}, nil, "not absolute"},
		{"root", SandboxSettings{Hidden: []string{"/.."}}, nil, "hide everything"},
		{"too many", SandboxSettings{Hidden: slices.Repeat([]string{"/x"}, maxSandboxHidden+1)}, nil, "at most"},
		{"cap below zero", SandboxSettings{RecordingCapMiB: -1}, nil, "recording cap"},
		{"cap too large", SandboxSettings{RecordingCapMiB: maxRecordingCapMiB + 1}, nil, "recording cap"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := normalizeSandbox(tt.in)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("normalizeSandbox = %v, want an error with %q", err, tt.err)
				}
				return
			}
			if err != nil || !slices.Equal(got.Hidden, tt.want) {
				t.Fatalf("normalizeSandbox = %q, %v; want %q", got.Hidden, err, tt.want)
			}
		})
	}
}
