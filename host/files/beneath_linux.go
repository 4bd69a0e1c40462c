package files

import (
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// beneathRefused is set once openat2 is found missing (ENOSYS, before
// Linux 5.6) or forbidden (EPERM, a seccomp filter's): the walk serves
// from then on, without the call tried again each time.
var beneathRefused atomic.Bool

// openBeneath opens name, a path below the directory dirfd, following no
// link in any of its parts, in one call (openat2).
func openBeneath(dirfd int, name string, flags int) (int, error) {
	if beneathRefused.Load() {
		return -1, unix.ENOSYS
	}
	fd, err := unix.Openat2(dirfd, name, &unix.OpenHow{Flags: uint64(flags), Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS})
	if err == unix.ENOSYS || err == unix.EPERM {
		beneathRefused.Store(true)
	}
	return fd, err
}
