package libs

import (
	"path/filepath"

	"rooda/host/files"
)

// Outside reports whether path, its symbolic links resolved, leads out of
// the directory root, and where it leads. root's own links are resolved
// too, so that a library reached through a link (as /tmp is on some
// systems) still holds its files. A path that does not resolve (a file
// that is not there, a dangling link) is not outside: reading it fails on
// its own.
func Outside(root, path string) (target string, outside bool) {
	target, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "", false
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return target, true
	}
	_, inside := files.Within(realRoot, target)
	return target, !inside
}
