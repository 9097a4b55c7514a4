package mcphttp

import (
	"fmt"
	"slices"
	"testing"

	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/store"
)

// A denial about files carries them as paths in the tool result, wrapped or
// not, for an agent to act on without parsing the reason; one without files
// has no paths.
func TestToolResultPaths(t *testing.T) {
	scope := &store.Denial{Code: store.CodeWriteScopeViolation, Reason: "outside the scope", Paths: []string{"../README", "notes.txt"}}
	for _, tc := range []struct {
		name string
		err  error
		want []string
	}{
		{"denial with paths", scope, scope.Paths},
		{"wrapped", fmt.Errorf("complete: %w", scope), scope.Paths},
		{"denial without paths", store.Deny(store.CodeNotFound, "no packet"), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc, _ := toolResult(&mcpserver.Result{Err: tc.err}).StructuredContent.(map[string]any)
			if sc == nil || sc["ok"] != false {
				t.Fatalf("structured content: %v", sc)
			}
			got, _ := sc["paths"].([]string)
			if !slices.Equal(got, tc.want) {
				t.Errorf("paths %v, want %v", got, tc.want)
			}
		})
	}
}
