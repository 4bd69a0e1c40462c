// Package starfmt is what script fmt and script lint are made of, less
// buildifier: the checks script lint offers and how --warnings chooses
// them, its findings and their order, and the files each command reads
// and rewrites. The formatting and the warnings themselves are
// buildifier's, in package starfmt/buildifier, which registers itself
// here as it initialises (Use): only rooda-full links it, for buildtools
// initialises at every start of a program that does (docs/design.md,
// "Two programs: rooda and rooda-full").
package starfmt

import "errors"

// Buildifier is buildifier's formatter and linter, as package
// starfmt/buildifier gives them (Use).
type Buildifier struct {
	// Format is src, the script at path, formatted; its error says
	// where src cannot be parsed, as file:line:col: message.
	Format func(path string, src []byte) ([]byte, error)
	// Lint is what checks, names of Checks, find in src, the script at
	// path; one finding of category Syntax where it cannot be parsed.
	Lint func(path string, src []byte, checks []string) []Finding
}

// linked is the Buildifier of this program, if it links one.
var linked *Buildifier

// Use makes b what Rewrite and LintFiles format and lint with.
func Use(b Buildifier) { linked = &b }

// Linked reports whether this program links buildifier (Use), which
// Rewrite and LintFiles need.
func Linked() bool { return linked != nil }

// ErrNotLinked is what Rewrite and LintFiles fail with in a program that
// links no buildifier.
var ErrNotLinked = errors.New("this program links no buildifier: rooda-full formats and lints scripts")
