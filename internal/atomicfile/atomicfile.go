// Package atomicfile replaces a file so that a reader sees the old content
// or the new, never part of either: a temporary file in the same folder,
// written and synced, renamed over the old one, the folder synced.
package atomicfile

import (
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
)

// Write replaces path with data at mode. The temporary file is named after
// path with a leading dot, so a crash leaves at most a hidden
// ".name.*.tmp" beside it, never a half-written path. A link at path is
// replaced by the file, not followed: resolve it first to keep it.
func Write(path string, data []byte, mode fs.FileMode) (err error) {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp") // created 0600
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	// Windows has no Unix modes to set; its files are the user's by ACL.
	if err := tmp.Chmod(mode); err != nil && runtime.GOOS != "windows" {
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		return err
	}
	if err := tmp.Sync(); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	// Make the rename itself durable. Not every platform can sync a
	// folder; the data is already safe in the file, so this is best effort.
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}
