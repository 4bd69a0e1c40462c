//go:build unix

package files

import (
	"io"
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

// Rename is os.Rename without its look for a directory at newpath
// first: rename(2) refuses to put a file over one too (EISDIR).
func Rename(oldpath, newpath string) error {
	err := unix.Rename(oldpath, newpath)
	for err == unix.EINTR {
		err = unix.Rename(oldpath, newpath)
	}
	if err != nil {
		return &os.LinkError{Op: "rename", Old: oldpath, New: newpath, Err: err}
	}
	return nil
}

// CreateNew makes the file path, which must not exist (O_EXCL: a lock
// file of git's), holding data, as openTemp makes a file: without
// offering it to Go's poller. One it could not write whole it removes:
// a failure leaves no file of its own, and never touches another's.
func CreateNew(path string, data []byte, perm fs.FileMode) error {
	fd, err := -1, error(unix.EINTR)
	for err == unix.EINTR {
		fd, err = unix.Open(path, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_CLOEXEC, uint32(perm.Perm()))
	}
	if err != nil {
		return &fs.PathError{Op: "open", Path: path, Err: err}
	}
	for len(data) > 0 && err == nil {
		var n int
		switch n, err = unix.Write(fd, data); {
		case err == unix.EINTR:
			err = nil
		case err == nil && n == 0:
			err = io.ErrShortWrite
		case err == nil:
			data = data[n:]
		}
	}
	if cerr := unix.Close(fd); err == nil {
		err = cerr
	}
	if err != nil {
		unix.Unlink(path)
		return &fs.PathError{Op: "write", Path: path, Err: err}
	}
	return nil
}
