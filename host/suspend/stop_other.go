//go:build !linux

package suspend

import (
	"os"
	"syscall"
)

// stopSelf stops rooda with SIGSTOP, which Go's runtime cannot catch.
func stopSelf() {
	syscall.Kill(os.Getpid(), syscall.SIGSTOP)
}
