//go:build unix

package libs

import (
	"os"
	"syscall"
)

// flock waits for an exclusive lock on f, released when f is closed.
func flock(f *os.File) error { return syscall.Flock(int(f.Fd()), syscall.LOCK_EX) }
