// Package buildifier formats and lints rooda's Starlark scripts with
// buildifier's formatter and warnings (github.com/bazelbuild/buildtools,
// used as a library), every file read as generic Starlark, never as a
// BUILD or .bzl file: what script fmt and script lint do with the rest
// of package starfmt, which it registers itself in as it initialises
// (starfmt.Use).
//
// It is a package of its own because buildtools, and the protobuf
// packages it brings, initialise at every start of a program that links
// them, what rooda's start-up cannot pay for every command
// (docs/design.md, "Two programs: rooda and rooda-full"): rooda-full
// links it, and rooda hands script fmt and script lint over to
// rooda-full.
package buildifier

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/bazelbuild/buildtools/build"

	"rooda/host/starfmt"
)

func init() { starfmt.Use(starfmt.Buildifier{Format: Format, Lint: Lint}) }

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
