package files

import "golang.org/x/sys/unix"

// openBeneath opens name, a path below the directory dirfd, following no
// link in any of its parts, in one call (openat2, Linux 5.6).
func openBeneath(dirfd int, name string, flags int) (int, error) {
	return unix.Openat2(dirfd, name, &unix.OpenHow{Flags: uint64(flags), Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS})
}
