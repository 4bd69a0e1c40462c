//go:build unix

package files

import (
	"io"
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
	fd, path, err := openBelow(dir, name)
	if err != nil {
		return nil, err
	}
	return fileOf(fd, path)
}

// ReadBelow reads name, a regular file below dir opened as OpenBelow
// opens it, and refuses it past limit bytes. It reads through the bare
// descriptor: an *os.File costs a small file four more system calls
// (its blocking mode set back and looked at twice, its size asked
// again), and rooda reads git's HEAD and branch this way several times
// an iteration.
func ReadBelow(dir, name string, limit int64) ([]byte, error) {
	fd, path, err := openBelow(dir, name)
	if err != nil {
		return nil, err
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return nil, &fs.PathError{Op: "read", Path: path, Err: err}
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		return nil, &fs.PathError{Op: "open", Path: path, Err: ErrNotRegular}
	}
	return readLimited(descriptor(fd), st.Size, path, limit)
}

// descriptor reads a bare file descriptor.
type descriptor int

func (fd descriptor) Read(p []byte) (int, error) {
	for {
		n, err := unix.Read(int(fd), p)
		switch {
		case err == unix.EINTR:
			continue
		case err != nil:
			return 0, err
		case n == 0 && len(p) > 0:
			return 0, io.EOF
		}
		return n, nil
	}
}

// openBelow opens name below dir as OpenBelow does, and returns the
// descriptor, non-blocking still, and the path it names.
func openBelow(dir, name string) (int, string, error) {
	names, ok := parts(name)
	if !ok {
		return -1, "", &fs.PathError{Op: "open", Path: filepath.Join(dir, name), Err: fs.ErrInvalid}
	}
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, "", &fs.PathError{Op: "open", Path: dir, Err: err}
	}
	const flags = unix.O_RDONLY | unix.O_CLOEXEC | unix.O_NOFOLLOW | unix.O_NONBLOCK
	// Where the kernel can open a path of several parts following no
	// link in one call, one call it is; on any error the walk below
	// tries again, and says which part it refused. The call needs only
	// search permission on the directories on the way, where the walk
	// opens each for reading: a directory of mode --x is passed by the
	// one, refused by the other.
	if len(names) > 1 {
		if file, err := openBeneath(fd, filepath.Join(names...), flags); err == nil {
			unix.Close(fd)
			return file, filepath.Join(dir, name), nil
		}
	}
	path := dir
	for i, part := range names {
		f := flags
		if i < len(names)-1 {
			f |= unix.O_DIRECTORY
		}
		next, err := unix.Openat(fd, part, f, 0)
		if err != nil {
			err = whyNotOpened(fd, part, err)
		}
		unix.Close(fd)
		path = filepath.Join(path, part)
		if err != nil {
			return -1, "", &fs.PathError{Op: "open", Path: path, Err: err}
		}
		fd = next
	}
	return fd, path, nil
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
