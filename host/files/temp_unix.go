//go:build unix

package files

import (
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"

	"golang.org/x/sys/unix"
)

// openTemp makes a new file of dir, named ".tmp-" and a number, which
// its owner alone may read and write, as os.CreateTemp does; but not
// through os.OpenFile, which offers each file to Go's poller: four
// fcntl and an epoll_ctl that a regular file refuses, for each of an
// iteration's record files (docs/performance.md).
func openTemp(dir string) (*os.File, error) {
	for tries := 0; ; tries++ {
		name := filepath.Join(dir, ".tmp-"+strconv.FormatUint(uint64(rand.Uint32()), 10))
		fd, err := unix.Open(name, unix.O_RDWR|unix.O_CREAT|unix.O_EXCL|unix.O_CLOEXEC, 0o600)
		switch {
		case err == unix.EINTR, err == unix.EEXIST && tries < 10000:
			continue
		case err != nil:
			return nil, &fs.PathError{Op: "open", Path: name, Err: err}
		}
		return os.NewFile(uintptr(fd), name), nil
	}
}

// rename is os.Rename without its look for a directory at newpath
// first: rename(2) refuses to put a file over one too (EISDIR).
func rename(oldpath, newpath string) error {
	err := unix.Rename(oldpath, newpath)
	for err == unix.EINTR {
		err = unix.Rename(oldpath, newpath)
	}
	if err != nil {
		return &os.LinkError{Op: "rename", Old: oldpath, New: newpath, Err: err}
	}
	return nil
}
