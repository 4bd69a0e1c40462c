package host

import (
	"context"
	"fmt"
	"io"
	"strings"

	"go.starlark.net/syntax"

	"rooda/host/files"
)

// DescribeScript writes what `rooda info` says of a script procedure: the
// script's docstring, then each iterate() it asks for, with the settings
// its dry run would use. The script runs as a dry run to find them, so the
// runtime must have been made with DryRun and Describe set to w; what else
// it prints is not part of the description. An error of the script is
// returned after what was found before it.
func (r *Runtime) DescribeScript(ctx context.Context, path string, w io.Writer) error {
	doc, err := Docstring(path)
	if err != nil {
		return err
	}
	if doc != "" {
		fmt.Fprint(w, "\nDescription:\n")
		for _, line := range strings.Split(doc, "\n") {
			fmt.Fprintln(w, strings.TrimRight("  "+line, " "))
		}
	}
	fmt.Fprintln(w, "\nLoops (as its dry run sees them, without arguments):")
	return r.Run(ctx, path)
}

// Docstring is the string a Starlark file begins with, trimmed; "" when
// it begins otherwise.
func Docstring(path string) (string, error) {
	src, err := files.Read(path, files.ScriptLimit)
	if err != nil {
		return "", err
	}
	f, err := syntax.Parse(path, src, 0)
	if err != nil || len(f.Stmts) == 0 {
		// A syntax error is the run's to report, with its position.
		return "", nil
	}
	return strings.TrimSpace(DocOf(f.Stmts[0])), nil
}

// DocOf is the string a statement that is only a string literal holds:
// the docstring of a module or a def, when it is their first; "" for any
// other statement.
func DocOf(stmt syntax.Stmt) string {
	expr, ok := stmt.(*syntax.ExprStmt)
	if !ok {
		return ""
	}
	lit, ok := expr.X.(*syntax.Literal)
	if !ok || lit.Token != syntax.STRING {
		return ""
	}
	return lit.Value.(string)
}
