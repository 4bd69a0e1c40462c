//go:build !unix

package files

import "os"

// openTemp makes a new file of dir for writeTemp (see the unix version).
func openTemp(dir string) (*os.File, error) { return os.CreateTemp(dir, ".tmp-*") }

// rename renames oldpath to newpath.
func rename(oldpath, newpath string) error { return os.Rename(oldpath, newpath) }
