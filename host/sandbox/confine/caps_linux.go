//go:build linux

package confine

import (
	"errors"

	"golang.org/x/sys/unix"
)

// Landlock confines root as it confines anyone, but root's capabilities
// reach past it: a kernel module loaded (finit_module reads a file, which
// Landlock allows), a raw socket, a mount in a namespace of its own. So
// a sandboxed agent of a rooda run as root (a container, a CI job) starts
// with none: every capability is dropped from the trampoline's bounding
// set and from those it holds, and execve gives uid 0 only what the
// bounding set keeps. It stays uid 0, owner of root's files, as before.
//
// Another user's trampoline holds, in its user namespace, what the
// ambient set lent it for the mounts and the loopback. Clearing the
// ambient set leaves them in the inheritable set, which the agent would
// keep (and pass on to a program with matching file capabilities): so
// every set is emptied, whoever runs rooda.

// dropCapabilities leaves this thread, and the agent it execs, no
// capability: the bounding set emptied where this thread may (it holds
// CAP_SETPCAP: root, in the initial user namespace or one of its own; a
// user's trampoline holds only what was lent, and its bounding set gives
// a non-root exec nothing), then the ambient, inheritable, permitted
// and effective sets for everyone.
func dropCapabilities() error {
	if holds(unix.CAP_SETPCAP) {
		if err := dropBounding(); err != nil {
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

// dropBounding empties the bounding set: what any later exec may gain.
func dropBounding() error {
	for c := 0; c < 64; c++ {
		err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0)
		if errors.Is(err, unix.EINVAL) {
			break // past the kernel's last capability
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// holds reports whether this thread's effective set has capability c.
func holds(c int) bool {
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if unix.Capget(&hdr, &data[0]) != nil {
		return false
	}
	return data[c/32].Effective&(1<<(c%32)) != 0
}
