package host

import (
	"errors"
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

// PlainContext is what rooda script check says of a plain string a
// script gives as context in the module at loc, "" when nothing: a plain
// string is text, always, even when it names a file; one that names a
// file beside the script, or looks like a path, was most likely meant as
// the file, as scripts written before this rule had it.
func (r *Runtime) PlainContext(loc Location, s string) string {
	if !singleWord(s) {
		return ""
	}
	abs, err := r.contextPath(loc, s)
	if err == nil {
		if info, err := os.Stat(abs); err == nil && !info.IsDir() {
			return fmt.Sprintf("context %q is text, not the file %s beside the script: a plain string in context is always text; for the file, write file(%q)", s, r.resolver.display(abs), s)
		}
	}
	if prompt.LooksLikePath(s) {
		return fmt.Sprintf("context %q is text, not a file: a plain string in context is always text; for a file beside the script, write file(%q), for one of the working directory file(%q, work = True)", s, s, s)
	}
	return ""
}

// WorkPath is the path of a file of the work, file(path, work = True),
// read(path) or exists(path): as given, relative to the working directory
// when it is not absolute, and read when it is used, not here, so that it
// may name what an earlier loop writes.
func WorkPath(path string) (string, error) {
	if strings.TrimSpace(path) == "" {
		return "", errors.New("the path is empty")
	}
	return filepath.Clean(path), nil
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
