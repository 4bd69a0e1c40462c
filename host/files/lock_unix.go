//go:build unix

package files

import (
	"errors"
	"os"
	"syscall"
)

// TryLock takes an exclusive lock on f, released when f is closed, if no
// one holds it: busy reports that someone does.
func TryLock(f *os.File) (busy bool, err error) {
	err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return true, nil
	}
	return false, err
}
