//go:build unix

package files

import (
	"io/fs"
	"os"
	"syscall"
)

// nonBlocking opens a named pipe at once, whether or not a writer has it
// open; on Linux, reads still wait for a writer's data, through Go's
// poller.
const nonBlocking = syscall.O_NONBLOCK

// keepOwner gives the file at path the owner and group of info's file,
// where they are not this process's: fs.ErrPermission where it may not.
func keepOwner(path string, info fs.FileInfo) error {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok || int(st.Uid) == os.Geteuid() && int(st.Gid) == os.Getegid() {
		return nil
	}
	return os.Chown(path, int(st.Uid), int(st.Gid))
}
