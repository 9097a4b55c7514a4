//go:build !linux

package cli

import (
	"errors"
	"os"
)

// makeRaw is Linux-only for now: elsewhere attach works line by line.
func makeRaw(*os.File) (func(), error) {
	return nil, errors.New("raw terminal mode not supported here")
}
