package files

import (
	"errors"
	"path/filepath"
	"strings"
)

// ErrSymlink is why OpenBelow refused a path: one of its parts below the
// directory is a symbolic link, which it never follows.
var ErrSymlink = errors.New("a symbolic link, which is not followed")

// ErrNotFile is why OpenBelow refused what it found: neither a regular
// file nor a directory (a pipe, a socket, a device).
var ErrNotFile = errors.New("neither a regular file nor a directory")

// ErrNotRegular is why ReadBelow refused what it found: no regular
// file (a directory, a pipe, a socket, a device).
var ErrNotRegular = errors.New("not a regular file")

// parts splits name, a path relative to a directory, into its parts; a
// path that leaves the directory has none.
func parts(name string) ([]string, bool) {
	name = filepath.Clean(name)
	if filepath.IsAbs(name) || name == ".." || strings.HasPrefix(name, ".."+string(filepath.Separator)) {
		return nil, false
	}
	return strings.Split(name, string(filepath.Separator)), true
}
