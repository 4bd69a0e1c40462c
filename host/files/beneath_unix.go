//go:build unix && !linux

package files

import "golang.org/x/sys/unix"

// openBeneath has no call of one: OpenBelow walks the parts.
func openBeneath(int, string, int) (int, error) { return -1, unix.ENOSYS }
