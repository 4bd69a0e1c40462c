package session

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"rooda/host"
	"rooda/host/files"
	"rooda/host/logging"
)

// ReadWork is a script's read(path): a file of the work, relative to the
// working directory, read now. In a dry run a file that is not there
// (one an earlier loop, which the dry run did not run, would write) gives
// "", a placeholder that the dry run's end names.
func (s *Session) ReadWork(path, pos string) (string, error) {
	path, err := host.WorkPath(path)
	if err != nil {
		return "", err
	}
	data, err := files.Read(path, files.PromptLimit)
	switch {
	case errors.Is(err, fs.ErrNotExist) && s.opts.DryRun:
		s.notes().Line(logging.Info, "dry_run_read", []any{"path", path}, "[dry-run] not there yet: %s; read() gives \"\"", path)
		s.madeUp(fmt.Sprintf("read(%q) at %s: not there yet; \"\"", path, pos))
		return "", nil
	case errors.Is(err, fs.ErrNotExist):
		return "", fmt.Errorf("%s is not there (%s); exists(%q) tells before reading", path, whereIs(path), path)
	case err != nil:
		return "", fmt.Errorf("%s: %v", path, errors.Unwrap(err))
	}
	return string(data), nil
}

// WorkExists is a script's exists(path): whether a file or directory of
// the work is there now, relative to the working directory.
func (s *Session) WorkExists(path string) (bool, error) {
	path, err := host.WorkPath(path)
	if err != nil {
		return false, err
	}
	_, err = os.Stat(path)
	return err == nil, nil
}

// whereIs says where a relative path of the work was looked for.
func whereIs(path string) string {
	if wd, err := os.Getwd(); err == nil && !filepath.IsAbs(path) {
		return "looked for in the working directory, " + wd
	}
	return "an absolute path"
}
