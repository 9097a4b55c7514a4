//go:build !linux && !darwin && !windows

package cli

import (
	"errors"
	"os"
)

// makeRaw is for Linux, macOS and Windows: elsewhere attach works line by
// line.
func makeRaw(*os.File) (func(), error) {
	return nil, errors.New("raw terminal mode not supported here")
}
