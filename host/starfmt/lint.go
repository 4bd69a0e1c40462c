package starfmt

import (
	"cmp"
	"fmt"
	"slices"

	"rooda/host/files"
)

// Finding is one thing script lint reports: where, which check, what.
// A finding with no line is about the whole file.
type Finding struct {
	File      string
	Line, Col int
	Category  string
	Message   string
}

func (f Finding) String() string {
	if f.File == "" {
		return fmt.Sprintf("%s: %s", f.Category, f.Message)
	}
	if f.Line == 0 {
		return fmt.Sprintf("%s: %s: %s", f.File, f.Category, f.Message)
	}
	return fmt.Sprintf("%s:%d:%d: %s: %s", f.File, f.Line, f.Col, f.Category, f.Message)
}

// Sort orders findings by file, position, category and message, each
// once.
func Sort(findings []Finding) []Finding {
	slices.SortFunc(findings, func(a, b Finding) int {
		return cmp.Or(cmp.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line), cmp.Compare(a.Col, b.Col),
			cmp.Compare(a.Category, b.Category), cmp.Compare(a.Message, b.Message))
	})
	return slices.Compact(findings)
}

// Syntax is the category of a script that cannot be parsed.
const Syntax = "syntax"

// Categories of script check's findings, which lint reports with its
// own.
const (
	Check        = "check"
	CheckWarning = "check-warning"
)

// LintFiles lints each of scripts with checks and merges what it finds
// with checked, script check's findings, sorted: a file script check
// found wrong loses buildifier's syntax error, Starlark's own telling it
// best.
func LintFiles(scripts, checks []string, checked []Finding) ([]Finding, error) {
	if linked == nil {
		return nil, ErrNotLinked
	}
	findings := slices.Clone(checked)
	for _, file := range scripts {
		src, err := files.Read(file, files.ScriptLimit)
		if err != nil {
			return nil, err
		}
		for _, f := range linked.Lint(file, src, checks) {
			if f.Category != Syntax || !slices.ContainsFunc(checked, func(c Finding) bool { return c.File == f.File && c.Category == Check }) {
				findings = append(findings, f)
			}
		}
	}
	return Sort(findings), nil
}
