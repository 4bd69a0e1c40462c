package host

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
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
	return fileDocstring(path, src), nil
}

func fileDocstring(path string, src []byte) string {
	f, err := syntax.Parse(path, src, 0)
	if err != nil || len(f.Stmts) == 0 {
		// A syntax error is the run's to report, with its position.
		return ""
	}
	return strings.TrimSpace(DocOf(f.Stmts[0]))
}

// Summary is what a script says of itself in a line: the first line of
// its docstring, else the first sentence of its comment header (a
// script is a program, and scripts open with a header, not a
// docstring); "" when it has neither, or it is not a regular file (a
// named pipe is read by the run, never by a listing).
func Summary(path string) string {
	if info, err := os.Stat(path); err != nil || !info.Mode().IsRegular() {
		return ""
	}
	src, err := files.Read(path, files.ScriptLimit)
	if err != nil {
		return ""
	}
	if doc := fileDocstring(path, src); doc != "" {
		first, _, _ := strings.Cut(doc, "\n")
		return strings.TrimSpace(first)
	}
	return firstSentence(headerParagraph(src))
}

// headerParagraph is the first paragraph of the comment a file opens
// with, its lines joined by spaces: from its first line of text to the
// first line that is blank, an empty comment or code. A #! line is no
// part of it.
func headerParagraph(src []byte) string {
	var words []string
	for i, line := range strings.Split(string(src), "\n") {
		line = strings.TrimSpace(line)
		if i == 0 && strings.HasPrefix(line, "#!") {
			continue
		}
		text, comment := strings.CutPrefix(line, "#")
		text = strings.TrimSpace(text)
		switch {
		case comment && text != "":
			words = append(words, text)
		case len(words) == 0 && (line == "" || comment):
			// Blank lines, or empty comments, before the header.
		default:
			return strings.Join(words, " ")
		}
	}
	return strings.Join(words, " ")
}

// firstSentence is text up to its first period followed by a space, as
// go doc takes a package comment's synopsis: a header's first line is
// most often cut mid-sentence by its wrapping.
func firstSentence(text string) string {
	if i := strings.Index(text, ". "); i >= 0 {
		return text[:i+1]
	}
	return text
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

// LibraryModules are the modules of the configured libraries, as load()
// names them ("@team//helpers.star"): the .star files below each
// library's directory but tests, hidden directories and testdata
// directories (the fixtures of its tests, no modules, some of which may
// not even parse on purpose), sorted. unready
// says why each library that cannot be loaded now (a git library not in
// the cache) is left out. A library whose directory cannot be read is an
// error, and the others' modules are listed all the same.
func (r *Runtime) LibraryModules() (modules []string, unready map[string]string, err error) {
	var errs []error
	for _, name := range slices.Sorted(maps.Keys(r.resolver.libraries)) {
		dir := r.resolver.libraries[name]
		found, err := scriptsUnder([]string{dir}, ".star")
		if err != nil {
			errs = append(errs, fmt.Errorf("library %s: %w", name, err))
			continue
		}
		for _, file := range found {
			rel, err := filepath.Rel(dir, file)
			if err != nil || strings.HasSuffix(file, "_test.star") || inTestdata(rel) {
				continue
			}
			modules = append(modules, "@"+name+"//"+filepath.ToSlash(rel))
		}
	}
	return modules, maps.Clone(r.resolver.unready), errors.Join(errs...)
}

// inTestdata says whether the file rel, relative to its library, is
// below a directory named testdata.
func inTestdata(rel string) bool {
	dirs := strings.Split(filepath.ToSlash(filepath.Dir(rel)), "/")
	return slices.Contains(dirs, "testdata")
}
