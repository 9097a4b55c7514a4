//go:build unix

package workspace

import (
	"io/fs"
	"syscall"
)

// allocation reads the blocks fi occupies: st_blocks is in 512-byte
// units on every unix, whatever the file system's block size.
func allocation(fi fs.FileInfo) fileAlloc {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fileAlloc{bytes: fi.Size()}
	}
	return fileAlloc{
		bytes:  int64(st.Blocks) * 512,
		dev:    uint64(st.Dev), // int32 on darwin
		id:     fileID{dev: uint64(st.Dev), ino: uint64(st.Ino)},
		shared: !fi.IsDir() && st.Nlink > 1,
	}
}
