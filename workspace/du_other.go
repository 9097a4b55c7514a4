//go:build !unix

package workspace

import "io/fs"

// allocation is fi's length where the system gives no block count.
func allocation(fi fs.FileInfo) fileAlloc {
	return fileAlloc{bytes: fi.Size()}
}
