//go:build unix

package fileserve

import (
	"os"
	"syscall"
)

// inode is a file's inode number, for the cache's checks: a file replaced
// by another of the same size and time is seen as changed.
func inode(fi os.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Ino)
	}
	return 0
}
