package host

import (
	"os"
	"strings"

	"go.starlark.net/syntax"

	"rooda/host/files"
)

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

// Summary is the first line of the docstring of the script at path; ""
// when it has none, or it is not a regular file (a named pipe is read by
// the run, never by a listing).
func Summary(path string) string {
	if info, err := os.Stat(path); err != nil || !info.Mode().IsRegular() {
		return ""
	}
	doc, err := Docstring(path)
	if err != nil {
		return ""
	}
	first, _, _ := strings.Cut(doc, "\n")
	return strings.TrimSpace(first)
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

// Source reads the module name names as load() would from the working
// directory: a path, @rooda//path of the standard library, or
// @library//path. It returns the name messages show and the source.
func (r *Runtime) Source(name string) (display string, src []byte, err error) {
	var loc Location
	if strings.HasPrefix(name, "@") {
		loc, err = r.resolver.resolve(Location{}, name)
	} else {
		loc, err = r.resolver.root(name)
	}
	if err != nil {
		return "", nil, err
	}
	src, err = r.resolver.read(Context(r.thread), loc)
	return loc.Display, src, err
}
