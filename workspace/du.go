package workspace

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
)

// DiskUse is how much disk a worktree's folder takes.
type DiskUse struct {
	// Bytes are the blocks the files occupy (what removing the folder
	// gives back), not the sum of their lengths: a sparse file counts what
	// it allocates, a file linked twice inside the folder counts once.
	// Where the system gives no block count, the lengths are summed.
	Bytes int64 `json:"bytes"`
	// Files counts the entries that are not folders: files, symlinks
	// (their own size, never their target's), sockets.
	Files int `json:"files"`
	// Unreadable counts the entries that could not be read (a folder
	// without permission, a file gone while walking); they are left out.
	Unreadable int `json:"unreadable,omitempty"`
}

// ctxCheckEvery is how many entries MeasureDisk walks between looks at
// its context: often enough to stop within milliseconds, rarely enough
// to cost nothing.
const ctxCheckEvery = 256

// MeasureDisk walks dir without following symlinks and adds up the disk
// its entries occupy. A worktree's top-level .git file is left out (it is
// a pointer to the repository's own .git, whose objects all worktrees
// share); a nested repository's .git folder is the agent's and counts.
// Folders on another file system than dir (a mount inside it) are not
// entered, as `du -x`. When ctx ends first, the count so far is returned
// with an error wrapping ctx's.
func MeasureDisk(ctx context.Context, dir string) (DiskUse, error) {
	root, err := filepath.Abs(dir)
	if err != nil {
		return DiskUse{}, fmt.Errorf("disk use of %s: %w", dir, err)
	}
	var (
		use  DiskUse
		n    int
		seen = map[fileID]bool{} // files with more than one link, counted once
		dev  uint64
	)
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if n++; n%ctxCheckEvery == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if err != nil {
			if path == root {
				return err
			}
			use.Unreadable++
			return nil // WalkDir skips an unreadable folder's contents itself
		}
		if filepath.Dir(path) == root && d.Name() == ".git" && !d.IsDir() {
			return nil
		}
		fi, err := d.Info() // an lstat: WalkDir never follows a symlink
		if err != nil {
			use.Unreadable++
			return nil
		}
		a := allocation(fi)
		if path == root {
			dev = a.dev
		} else if d.IsDir() && a.dev != dev {
			return fs.SkipDir
		}
		if a.shared {
			if seen[a.id] {
				return nil
			}
			seen[a.id] = true
		}
		use.Bytes += a.bytes
		if !d.IsDir() {
			use.Files++
		}
		return nil
	})
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return use, fmt.Errorf("disk use of %s: stopped after %d files: %w", root, use.Files, err)
	}
	if err != nil {
		return DiskUse{}, fmt.Errorf("disk use of %s: %w", root, err)
	}
	return use, nil
}

// FormatBytes writes a size for a person, in binary units with three
// figures at most: 512 B, 1.5 KiB, 204 KiB, 3.2 GiB.
func FormatBytes(n int64) string {
	if n < 1024 {
		return fmt.Sprintf("%d B", n)
	}
	units := []string{"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}
	v, unit := float64(n)/1024, 0
	// 1023.5 KiB would print as 1024 KiB: it is 1.0 MiB.
	for v >= 1023.5 && unit < len(units)-1 {
		v, unit = v/1024, unit+1
	}
	if v < 9.95 {
		return fmt.Sprintf("%.1f %s", v, units[unit])
	}
	return fmt.Sprintf("%.0f %s", v, units[unit])
}

// fileID names a file across its links.
type fileID struct{ dev, ino uint64 }

// fileAlloc is what one entry occupies, as the system tells it.
type fileAlloc struct {
	bytes  int64
	dev    uint64 // file system, 0 where unknown
	id     fileID
	shared bool // more than one link: count it once
}
