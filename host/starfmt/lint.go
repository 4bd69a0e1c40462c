package starfmt

import (
	"cmp"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/bazelbuild/buildtools/build"
	"github.com/bazelbuild/buildtools/warn"

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

// Lint runs the checks (names of Checks) over the script src at path and
// returns what they find, less what is an idiom of rooda scripts:
//   - a parameter a function does not use: a callback's parameters are
//     the ones rooda calls it with (on_iteration(it), a context
//     function's (number, previous)); a local variable no one reads is
//     still reported;
//   - a test_* function of a *_test.star file without a docstring: its
//     name says what it tests.
//
// function-docstring-args is rooda's own (docstringArgsWarnings): it
// reads a docstring as script doc does.
//
// A script buildifier cannot parse is one finding of category Syntax.
func Lint(path string, src []byte, checks []string) []Finding {
	f, err := parse(path, src)
	if se := (*SyntaxError)(nil); errors.As(err, &se) {
		return []Finding{{File: path, Line: se.Line, Col: se.Col, Category: Syntax, Message: se.Msg}}
	} else if err != nil {
		return []Finding{{File: path, Category: Syntax, Message: err.Error()}}
	}
	params := parameters(f)
	test := strings.HasSuffix(filepath.Base(path), "_test.star")
	var out []Finding
	if slices.Contains(checks, docstringArgs) {
		checks = slices.DeleteFunc(slices.Clone(checks), func(c string) bool { return c == docstringArgs })
		for _, found := range docstringArgsWarnings(f) {
			found.File = path
			out = append(out, found)
		}
	}
	for _, w := range warn.FileWarnings(f, checks, nil, warn.ModeWarn, nil) {
		if w.Category == "unused-variable" && params[w.Start] ||
			w.Category == "function-docstring" && test && testFunction(f, w.Start) {
			continue
		}
		out = append(out, Finding{
			File: path, Line: w.Start.Line, Col: w.Start.LineRune, Category: w.Category,
			// A finding is one line: the rest of buildifier's message
			// explains its rule at length.
			Message: firstLine(w.Message),
		})
	}
	return out
}

// Syntax is the category of a script that cannot be parsed.
const Syntax = "syntax"

// parameters are the positions of the parameters of f's functions and
// lambdas, and of their names (*args starts before args).
func parameters(f *build.File) map[build.Position]bool {
	at := map[build.Position]bool{}
	build.Walk(f, func(e build.Expr, _ []build.Expr) {
		var fn *build.Function
		switch e := e.(type) {
		case *build.DefStmt:
			fn = &e.Function
		case *build.LambdaExpr:
			fn = &e.Function
		default:
			return
		}
		for _, p := range fn.Params {
			start, _ := p.Span()
			at[start] = true
			if id, _ := build.GetParamIdent(p); id != nil {
				start, _ = id.Span()
				at[start] = true
			}
		}
	})
	return at
}

// testFunction says whether the def at pos is a test_* function of a
// script test.
func testFunction(f *build.File, pos build.Position) bool {
	for _, stmt := range f.Stmt {
		if def, ok := stmt.(*build.DefStmt); ok && strings.HasPrefix(def.Name, "test_") {
			if start, _ := def.Span(); start == pos {
				return true
			}
		}
	}
	return false
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return strings.TrimSpace(line)
}

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
	findings := slices.Clone(checked)
	for _, file := range scripts {
		src, err := files.Read(file, files.ScriptLimit)
		if err != nil {
			return nil, err
		}
		for _, f := range Lint(file, src, checks) {
			if f.Category != Syntax || !slices.ContainsFunc(checked, func(c Finding) bool { return c.File == f.File && c.Category == Check }) {
				findings = append(findings, f)
			}
		}
	}
	return Sort(findings), nil
}
