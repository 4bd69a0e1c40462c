package libs

import (
	"path/filepath"
	"strings"
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
	return target, !within(realRoot, target)
}

// within reports whether path is root or below it; both are clean.
func within(root, path string) bool {
	rel, err := filepath.Rel(root, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
