// Package starfmt formats and lints rooda's Starlark scripts with
// buildifier's formatter and warnings (github.com/bazelbuild/buildtools,
// used as a library), every file read as generic Starlark, never as a
// BUILD or .bzl file: what script fmt and script lint do.
package starfmt

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/bazelbuild/buildtools/build"
)

// parse reads src as generic Starlark, whatever the file is named: a
// script named BUILD.star is formatted as any other.
func parse(path string, src []byte) (*build.File, error) {
	f, err := build.ParseDefault(path, src)
	var pe build.ParseError
	if errors.As(err, &pe) {
		col := pe.Pos.LineRune
		// The parser stands after the token it could not take: the
		// column is where that token starts.
		if token, ok := strings.CutPrefix(pe.Message, "syntax error near "); ok && col > utf8.RuneCountInString(token) {
			col -= utf8.RuneCountInString(token)
		}
		return nil, &SyntaxError{File: path, Line: pe.Pos.Line, Col: col, Msg: pe.Message}
	}
	if err != nil {
		return nil, err
	}
	f.Type = build.TypeDefault
	return f, nil
}

// SyntaxError is where a script cannot be parsed.
type SyntaxError struct {
	File      string
	Line, Col int
	Msg       string
}

// Error is file:line:col: message, as every position rooda tells.
func (e *SyntaxError) Error() string {
	return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg)
}

// Format is src formatted as buildifier formats a generic Starlark file.
// Its error says where src cannot be parsed, as file:line:col: message.
func Format(path string, src []byte) ([]byte, error) {
	f, err := parse(path, src)
	if err != nil {
		return nil, err
	}
	return build.Format(f), nil
}

// Rewrite formats the file at path and reports whether that changes it.
// Unless check is set, a file that changes is replaced, atomically: the
// formatted text is written beside it, with its mode, and renamed over
// it, so that an interrupted run never leaves half a script.
func Rewrite(path string, check bool) (changed bool, err error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return false, err
	}
	out, err := Format(path, src)
	if err != nil || bytes.Equal(out, src) {
		return false, err
	}
	if check {
		return true, nil
	}
	return true, replace(path, out)
}

// replace writes data to path through a temporary file in the same
// directory, keeping path's mode.
func replace(path string, data []byte) error {
	info, err := os.Stat(path)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(info.Mode().Perm()); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
