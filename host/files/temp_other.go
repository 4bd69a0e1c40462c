//go:build !unix

package files

import (
	"io/fs"
	"os"
)

// openTemp makes a new file of dir for writeTemp (see the unix version).
func openTemp(dir string) (*os.File, error) { return os.CreateTemp(dir, ".tmp-*") }

// Rename renames oldpath to newpath.
func Rename(oldpath, newpath string) error { return os.Rename(oldpath, newpath) }

// CreateNew makes the file path, which must not exist, holding data;
// one it could not write whole it removes (see the unix version).
func CreateNew(path string, data []byte, perm fs.FileMode) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
	}
	return err
}
