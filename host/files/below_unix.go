//go:build unix

package files

import (
	"io/fs"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// OpenBelow opens name, a path below dir, for reading, following no
// symbolic link from dir down: each part is opened from the one before
// it with O_NOFOLLOW, so that no link, and no link swapped in meanwhile,
// leads it elsewhere. dir itself is opened as named. Only a regular file
// or a directory is opened; a pipe is refused without waiting for a
// writer. Its errors are *fs.PathError naming the part refused, wrapping
// ErrSymlink, ErrNotFile or the system's error (fs.ErrNotExist for one
// missing).
func OpenBelow(dir, name string) (*os.File, error) {
	names, ok := parts(name)
	if !ok {
		return nil, &fs.PathError{Op: "open", Path: filepath.Join(dir, name), Err: fs.ErrInvalid}
	}
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: dir, Err: err}
	}
	path := dir
	for i, part := range names {
		flags := unix.O_RDONLY | unix.O_CLOEXEC | unix.O_NOFOLLOW | unix.O_NONBLOCK
		if i < len(names)-1 {
			flags |= unix.O_DIRECTORY
		}
		next, err := unix.Openat(fd, part, flags, 0)
		if err != nil {
			err = whyNotOpened(fd, part, err)
		}
		unix.Close(fd)
		path = filepath.Join(path, part)
		if err != nil {
			return nil, &fs.PathError{Op: "open", Path: path, Err: err}
		}
		fd = next
	}
	return fileOf(fd, path)
}

// whyNotOpened tells a symbolic link from the error opening it gave,
// which differs by system (ELOOP, EMLINK, ENOTDIR).
func whyNotOpened(dirfd int, part string, err error) error {
	var st unix.Stat_t
	if unix.Fstatat(dirfd, part, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && st.Mode&unix.S_IFMT == unix.S_IFLNK {
		return ErrSymlink
	}
	return err
}

// fileOf makes the descriptor opened as path an *os.File when it is a
// regular file or a directory, and blocking again as such files are.
func fileOf(fd int, path string) (*os.File, error) {
	var st unix.Stat_t
	err := unix.Fstat(fd, &st)
	if err == nil && st.Mode&unix.S_IFMT != unix.S_IFREG && st.Mode&unix.S_IFMT != unix.S_IFDIR {
		err = ErrNotFile
	}
	if err == nil {
		err = unix.SetNonblock(fd, false)
	}
	if err != nil {
		unix.Close(fd)
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	return os.NewFile(uintptr(fd), path), nil
}
