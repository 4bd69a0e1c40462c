package buildifier

import (
	"errors"
	"path/filepath"
	"slices"
	"strings"

	"github.com/bazelbuild/buildtools/build"
	"github.com/bazelbuild/buildtools/warn"

	"rooda/host/starfmt"
)

// Lint runs the checks (names of starfmt.Checks) over the script src at
// path and returns what they find, less what is an idiom of rooda
// scripts:
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
// A script buildifier cannot parse is one finding of category
// starfmt.Syntax.
func Lint(path string, src []byte, checks []string) []starfmt.Finding {
	f, err := parse(path, src)
	if se := (*SyntaxError)(nil); errors.As(err, &se) {
		return []starfmt.Finding{{File: path, Line: se.Line, Col: se.Col, Category: starfmt.Syntax, Message: se.Msg}}
	} else if err != nil {
		return []starfmt.Finding{{File: path, Category: starfmt.Syntax, Message: err.Error()}}
	}
	params := parameters(f)
	test := strings.HasSuffix(filepath.Base(path), "_test.star")
	var out []starfmt.Finding
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
		out = append(out, starfmt.Finding{
			File: path, Line: w.Start.Line, Col: w.Start.LineRune, Category: w.Category,
			// A finding is one line: the rest of buildifier's message
			// explains its rule at length.
			Message: firstLine(w.Message),
		})
	}
	return out
}

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
