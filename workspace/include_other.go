//go:build !linux

package workspace

import (
	"errors"
	"os"
)

// cloneFile is Linux's FICLONE only; elsewhere the bytes are copied.
func cloneFile(dst, src *os.File) error { return errors.ErrUnsupported }
