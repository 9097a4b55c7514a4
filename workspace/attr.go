package workspace

import (
	"bytes"
	"context"
	"fmt"

	"github.com/switchboard-dev/switchboard/gitcmd"
)

// maxAttrPaths bounds the paths asked about in one Generated call: a diff
// the app shows holds far fewer files.
const maxAttrPaths = 100_000

// Generated returns those of paths (relative to the top of the repository
// at repoPath, slash-separated) that the repository's .gitattributes mark
// linguist-generated (set, or set to true), in the order given. The
// attributes are read in repoPath, the person's checkout: a packet's own
// .gitattributes, which its agent wrote, must not fold its code out of
// sight. The paths go to git on its standard input, never as arguments.
func Generated(ctx context.Context, repoPath string, paths []string) ([]string, error) {
	if len(paths) == 0 {
		return nil, nil
	}
	if len(paths) > maxAttrPaths {
		return nil, fmt.Errorf("generated files in %s: %d paths, at most %d", repoPath, len(paths), maxAttrPaths)
	}
	var in bytes.Buffer
	for _, p := range paths {
		in.WriteString(p)
		in.WriteByte(0)
	}
	out, err := gitcmd.RunInput(ctx, repoPath, in.Bytes(), "check-attr", "-z", "--stdin", "linguist-generated")
	if err != nil {
		return nil, fmt.Errorf("generated files in %s: %w", repoPath, err)
	}
	// -z prints "path\0attribute\0value\0" for each path.
	recs := bytes.Split(out, []byte{0})
	var gen []string
	for i := 0; i+2 < len(recs); i += 3 {
		switch string(recs[i+2]) {
		case "set", "true":
			gen = append(gen, string(recs[i]))
		}
	}
	return gen, nil
}
