package session

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"go.starlark.net/starlark"

	"rooda/host"
	"rooda/host/files"
	"rooda/host/logging"
)

// ReadWork is a script's read(path): a file of the work, relative to the
// working directory, read now. In a dry run a file that is not there
// (one an earlier loop, which the dry run did not run, would write) gives
// "", a placeholder that the dry run's end names.
func (s *Session) ReadWork(thread *starlark.Thread, path, pos string) (string, error) {
	path, err := host.WorkPath(path)
	if err != nil {
		return "", err
	}
	// Journaled, with the error the file gave: a resumed run reads what
	// the run read, whatever the loops since did to the file.
	type answer struct {
		Data    []byte
		Missing bool
		Err     string
	}
	a, _, err := journaled(s, thread, call{"read", pos, path}, false, func() (answer, error) {
		data, err := files.Read(path, files.PromptLimit)
		a := answer{Data: data, Missing: errors.Is(err, fs.ErrNotExist)}
		if u := errors.Unwrap(err); u != nil {
			err = u
		}
		if err != nil && !a.Missing {
			a.Err = err.Error()
		}
		return a, nil
	})
	if err != nil {
		return "", err
	}
	data := a.Data
	switch {
	case a.Missing:
		err = fs.ErrNotExist
	case a.Err != "":
		err = fmt.Errorf("%s", a.Err)
	}
	switch {
	case errors.Is(err, fs.ErrNotExist) && s.opts.DryRun:
		s.notes().Line(logging.Info, "dry_run_read", []any{"path", path}, "[dry-run] not there yet: %s; read() gives \"\"", path)
		s.madeUp(fmt.Sprintf("read(%q) at %s: not there yet; \"\"", path, pos))
		return "", nil
	case errors.Is(err, fs.ErrNotExist):
		return "", fmt.Errorf("%s is not there (%s); exists(%q) tells before reading", path, whereIs(path), path)
	case err != nil:
		return "", fmt.Errorf("%s: %v", path, err)
	}
	return string(data), nil
}

// WorkExists is a script's exists(path): whether a file or directory of
// the work is there now, relative to the working directory.
func (s *Session) WorkExists(thread *starlark.Thread, path, pos string) (bool, error) {
	path, err := host.WorkPath(path)
	if err != nil {
		return false, err
	}
	ok, _, err := journaled(s, thread, call{"exists", pos, path}, false, func() (bool, error) {
		_, err := os.Stat(path)
		return err == nil, nil
	})
	return ok, err
}

// whereIs says where a relative path of the work was looked for.
func whereIs(path string) string {
	if wd, err := os.Getwd(); err == nil && !filepath.IsAbs(path) {
		return "looked for in the working directory, " + wd
	}
	return "an absolute path"
}
