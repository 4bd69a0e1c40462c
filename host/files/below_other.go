//go:build !unix

package files

import (
	"io/fs"
	"os"
	"path/filepath"
)

// OpenBelow opens name, a path below dir, for reading, following no
// symbolic link from dir down (see the unix version). Here each part is
// looked at before the file is opened, which a link swapped in between
// would escape.
func OpenBelow(dir, name string) (*os.File, error) {
	names, ok := parts(name)
	if !ok {
		return nil, &fs.PathError{Op: "open", Path: filepath.Join(dir, name), Err: fs.ErrInvalid}
	}
	path := dir
	for _, part := range names {
		path = filepath.Join(path, part)
		info, err := os.Lstat(path)
		switch {
		case err != nil:
			return nil, err
		case info.Mode()&fs.ModeSymlink != 0:
			return nil, &fs.PathError{Op: "open", Path: path, Err: ErrSymlink}
		case !info.Mode().IsRegular() && !info.IsDir():
			return nil, &fs.PathError{Op: "open", Path: path, Err: ErrNotFile}
		}
	}
	return os.Open(path)
}

// ReadBelow reads name, a regular file below dir opened as OpenBelow
// opens it, and refuses it past limit bytes.
func ReadBelow(dir, name string, limit int64) ([]byte, error) {
	f, err := OpenBelow(dir, name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, &fs.PathError{Op: "open", Path: f.Name(), Err: ErrNotRegular}
	}
	return ReadAll(f, f.Name(), limit)
}
