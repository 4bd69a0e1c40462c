package libs

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"rooda/host/config"
	"rooda/host/files"
	gitpkg "rooda/host/git"
)

// LockFile is the name of the file that pins git libraries.
const LockFile = "rooda.lock"

// Pin is what rooda.lock records of one library. Its URL has no secret
// (git.RedactURL): rooda.lock is committed, and a library is always
// fetched from the configuration's URL.
type Pin struct {
	Git    string `json:"git"`
	Ref    string `json:"ref"`
	Path   string `json:"path,omitempty"`
	Commit string `json:"commit"`
	SHA256 string `json:"sha256"`
}

// covers reports, as an error saying what to do, a pin that is not of
// the library the configuration names now. A new password or token is
// the same library: the URLs are compared without their secrets (which
// an earlier rooda kept in rooda.lock).
func (p Pin) covers(name string, lib config.Library) error {
	pinned, named := gitpkg.RedactURL(p.Git), gitpkg.RedactURL(lib.Git)
	if pinned == named && p.Ref == lib.Ref && p.Path == lib.Path {
		return nil
	}
	return fmt.Errorf("rooda.lock pins %s %s (path %q); the configuration now says %s %s (path %q): run rooda lib update %s",
		pinned, p.Ref, p.Path, named, lib.Ref, lib.Path, name)
}

// lock is a rooda.lock file.
type lock struct {
	Libraries map[string]Pin `json:"libraries"`
}

func readLock(dir string) (*lock, error) {
	l := &lock{Libraries: map[string]Pin{}}
	path := filepath.Join(dir, LockFile)
	data, err := files.Read(path, files.LockLimit)
	if errors.Is(err, fs.ErrNotExist) {
		return l, nil
	}
	if err != nil {
		return nil, fmt.Errorf("cannot read %s: %v%s", path, errors.Unwrap(err), recovery)
	}
	if err := json.Unmarshal(data, l); err != nil {
		return nil, fmt.Errorf("%s: %v%s", path, err, recovery)
	}
	if l.Libraries == nil {
		l.Libraries = map[string]Pin{}
	}
	for name, p := range l.Libraries {
		// A commit is SHA-1's or SHA-256's name; the content's digest is
		// SHA-256's: 64 digits of hex, as a SHA-256 commit's name is.
		if !gitpkg.IsHash(p.Commit) || len(p.SHA256) != 64 || !gitpkg.IsHash(p.SHA256) {
			return nil, fmt.Errorf("%s: library %s has a malformed commit or sha256%s", path, name, recovery)
		}
	}
	return l, nil
}

const recovery = "\nIf the file is damaged, delete it and run rooda lib fetch to pin every library again."

// write replaces the lock file whole: a reader never sees half of one.
func (l *lock) write(dir string) error {
	data, err := json.MarshalIndent(l, "", "  ")
	if err != nil {
		return err
	}
	return files.WriteWhole(filepath.Join(dir, LockFile), append(data, '\n'))
}
