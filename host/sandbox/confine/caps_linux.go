//go:build linux

package confine

import (
	"golang.org/x/sys/unix"
)

// Landlock confines root as it confines anyone, but root's capabilities
// reach past it: a kernel module loaded (finit_module reads a file, which
// Landlock allows), a raw socket, a mount in a namespace of its own. So
// a sandboxed agent of a rooda run as root (a container, a CI job) starts
// with none, and gains none from any exec: the trampoline empties every
// set it holds, and asks for no new privileges. An exec then gives no
// more than the sets held before it (setuid bits and file capabilities
// are ignored, and uid 0's own claim to the bounding set is cut to the
// empty permitted set), for the agent and all it starts. It stays uid 0,
// owner of root's files, as before.
//
// Another user's trampoline holds, in its user namespace, what the
// ambient set lent it for the mounts and the loopback. Clearing the
// ambient set leaves them in the inheritable set, which the agent would
// keep (and pass on to a program with matching file capabilities): so
// every set is emptied, whoever runs rooda.

// dropCapabilities leaves this thread, and everything it execs, no
// capability: no new privileges, then the ambient, inheritable,
// permitted and effective sets emptied. The bounding set is left as it
// is: under no new privileges it gives an exec nothing, and emptying it
// took a prctl a capability, each committing new credentials (41 calls,
// 70–130 µs an iteration of a rooda run as root). Landlock asks for no
// new privileges as well; here it holds where Landlock is missing too.
func dropCapabilities() error {
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return err
	}
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil {
		return err
	}
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var none [2]unix.CapUserData
	return unix.Capset(&hdr, &none[0])
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
