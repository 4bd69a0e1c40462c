//go:build linux

package sandbox

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// Landlock confines root as it confines anyone, but root's capabilities
// reach past it: a kernel module loaded (finit_module reads a file, which
// Landlock allows), a raw socket, a mount in a namespace of its own. So
// a sandboxed agent of a rooda run as root (a container, a CI job) starts
// with none: every capability is dropped from the trampoline's bounding
// set and from those it holds, and execve gives uid 0 only what the
// bounding set keeps. It stays uid 0, owner of root's files, as before.

// dropCapabilities leaves this thread, and the agent it execs, no
// capability; a no-op for a user other than root, who holds none (the
// user namespace's were cleared with the ambient set).
func dropCapabilities() error {
	if os.Geteuid() != 0 {
		return nil
	}
	for c := 0; c < 64; c++ {
		err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0)
		if errors.Is(err, unix.EINVAL) {
			break // past the kernel's last capability
		}
		if err != nil {
			return err
		}
	}
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil {
		return err
	}
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var none [2]unix.CapUserData
	return unix.Capset(&hdr, &none[0])
}
