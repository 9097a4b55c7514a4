package workspace

import (
	"context"
	"errors"
	"reflect"
	"testing"
)

// What became of a pull request is gh's answer to pr view; without gh, or
// for what is not a web address, there is none.
func TestPullRequestState(t *testing.T) {
	const url = "https://github.com/o/r/pull/7"
	for _, tc := range []struct {
		name, pr, want, url string
		noGH, wantErr       bool
	}{
		{name: "open", pr: `echo OPEN`, want: "OPEN", url: url},
		{name: "merged", pr: `echo MERGED`, want: "MERGED", url: url},
		{name: "gh fails", pr: `echo "no pull requests found" >&2; exit 1`, url: url, wantErr: true},
		{name: "odd answer", pr: `echo maybe`, url: url, wantErr: true},
		{name: "no gh", noGH: true, url: url, wantErr: true},
		{name: "not a web address", pr: `echo OPEN`, url: "--help", wantErr: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bin := pathWithOnlyGit(t)
			auth := 0
			if tc.noGH {
				auth = -1
			}
			calls := standInGH(t, bin, auth, tc.pr)
			got, err := PullRequestState(context.Background(), t.TempDir(), tc.url)
			if (err != nil) != tc.wantErr || got != tc.want {
				t.Fatalf("state %q, %v; want %q (error %v)", got, err, tc.want, tc.wantErr)
			}
			if tc.noGH && !errors.Is(err, ErrNoGH) {
				t.Errorf("without gh: %v", err)
			}
			if tc.url == url && !tc.noGH {
				if want := [][]string{{"pr", "view", url, "--json", "state", "--jq", ".state"}}; !reflect.DeepEqual(ghCalls(t, calls), want) {
					t.Errorf("gh was run with %q", ghCalls(t, calls))
				}
			}
		})
	}
}
