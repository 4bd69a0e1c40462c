package host

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"go.starlark.net/syntax"

	"rooda/host/files"
	"rooda/host/prompt"
)

// ContextFile is what the context value file(path) at pos becomes: the
// path of a file, relative to the .star file at pos as a fragment's is,
// told as the working directory sees it. A file that is not there is an
// error at the call, so its name never reaches a prompt as text.
func (r *Runtime) ContextFile(pos syntax.Position, path string) (string, error) {
	return r.contextFile(r.files[pos.Filename()], path)
}

func (r *Runtime) contextFile(loc Location, path string) (string, error) {
	if strings.TrimSpace(path) == "" {
		return "", fmt.Errorf("file: the path is empty")
	}
	abs, err := r.contextPath(loc, path)
	if err != nil {
		return "", err
	}
	info, err := os.Stat(abs)
	switch {
	case err != nil:
		return "", fmt.Errorf("context file not found: %s\n%s", r.resolver.display(abs), scriptTip)
	case info.IsDir():
		return "", fmt.Errorf("context %s is a directory; give a file", r.resolver.display(abs))
	}
	return fromHere(abs), nil
}

// fromHere is abs as the working directory sees it now, where the prompt
// reads it: below it, a relative path, so that a prompt holds no path of
// the machine; elsewhere the absolute one. A script test runs each test
// in a directory of its own, which is not the run's.
func fromHere(abs string) string {
	if wd, err := os.Getwd(); err == nil {
		return files.Shown(wd, abs)
	}
	return abs
}

// ContextString is what a plain string a script gives as context at pos
// becomes. One that names a file, relative to the .star file, is that
// file, as it has always been; any other is text, except a single word
// that looks like a path (notes.md, docs/plan): a file that is missing is
// an error, not its name pasted into the prompt.
func (r *Runtime) ContextString(pos syntax.Position, s string) (string, error) {
	return r.contextString(r.files[pos.Filename()], s)
}

func (r *Runtime) contextString(loc Location, s string) (string, error) {
	if !singleWord(s) {
		return s, nil
	}
	abs, err := r.contextPath(loc, s)
	if err != nil {
		return "", err
	}
	if info, err := os.Stat(abs); err == nil && !info.IsDir() {
		return fromHere(abs), nil
	}
	if prompt.LooksLikePath(s) {
		return "", fmt.Errorf("context %q names no file: %s is not there\n%s Fix the path; for text rather than a file, write a sentence", s, r.resolver.display(abs), scriptTip)
	}
	return s, nil
}

// contextPath is path as the module at loc means it: relative to its
// directory; a library's own file.
func (r *Runtime) contextPath(loc Location, path string) (string, error) {
	if loc.library != "" {
		own, err := r.resolver.ownFile(loc, path)
		if err != nil {
			return "", err
		}
		return own.Path, nil
	}
	if filepath.IsAbs(path) {
		return path, nil
	}
	if loc.Path == "" {
		return "", fmt.Errorf("context file %s: the embedded library has no files to give as context", path)
	}
	return filepath.Join(loc.Dir(), path), nil
}

func singleWord(s string) bool { return s != "" && !strings.ContainsAny(s, " \t\r\n") }
