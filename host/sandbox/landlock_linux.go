//go:build linux

package sandbox

import (
	"syscall"

	"rooda/host/sandbox/confine"
)

// ABI is the Landlock ABI the kernel offers; 0 where it offers none.
// ROODA_SANDBOX_ABI, when set, says less: a test makes the kernel look
// older than it is.
func ABI() int { return confine.ABI() }

// Kernel names the running kernel ("Linux 6.18.5"), for messages.
func Kernel() string {
	var u syscall.Utsname
	if syscall.Uname(&u) != nil {
		return "unknown"
	}
	str := func(b [65]int8) string {
		var out []byte
		for _, c := range b {
			if c == 0 {
				break
			}
			out = append(out, byte(c))
		}
		return string(out)
	}
	return str(u.Sysname) + " " + str(u.Release)
}
