// Package starfmt formats and lints rooda's Starlark scripts with
// buildifier's formatter and warnings (github.com/bazelbuild/buildtools,
// used as a library), every file read as generic Starlark, never as a
// BUILD or .bzl file: what script fmt and script lint do.
package starfmt

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/bazelbuild/buildtools/build"

	"rooda/host/files"
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
// It reads the file as a script is read (files.Read: bounded, a named
// pipe not waited on). Unless check is set, a file that changes is
// replaced whole (files.Replace: with its mode and owner, through a link
// to its target, synced before it takes the name), so that no crash
// leaves half a script; one that could not be replaced is not changed,
// nor a read-only one unless readOnlyToo.
func Rewrite(path string, check, readOnlyToo bool) (changed bool, err error) {
	src, err := files.Read(path, files.ScriptLimit)
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
	if err := files.Replace(path, out, readOnlyToo); err != nil {
		return false, err
	}
	return true, nil
}
