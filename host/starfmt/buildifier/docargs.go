package buildifier

import (
	"fmt"
	"strings"

	"github.com/bazelbuild/buildtools/build"
	"github.com/bazelbuild/buildtools/warn"

	"rooda/host/docstring"
	"rooda/host/starfmt"
)

// docstringArgs is the category of docstringArgsWarnings, which script
// lint runs in place of buildifier's check of that name: buildifier
// reads an argument's type only when it is words, commas and brackets,
// so that "cmd (str | list of str):", which script doc renders, was an
// argument it did not see, "not documented". This check reads a
// docstring as script doc does (package docstring), and says too of a
// type that script stub cannot read, an argument's or the one Returns:
// begins with.
const docstringArgs = "function-docstring-args"

// docstringArgsWarnings checks the Args: section of every def's
// docstring against the def's parameters, as buildifier's check does: a
// docstring that documents any argument, or the docstring of a function
// that must have one, documents each parameter and only those, each with
// a type in the grammar of docstring.Type; the type Returns: begins
// with is in it too.
func docstringArgsWarnings(f *build.File) []starfmt.Finding {
	required := map[*build.DefStmt]bool{}
	for _, stmt := range f.Stmt {
		if def, ok := stmt.(*build.DefStmt); ok {
			required[def] = docstringRequired(def)
		}
	}
	var out []starfmt.Finding
	build.WalkStatements(f, func(e build.Expr, _ []build.Expr) error {
		def, ok := e.(*build.DefStmt)
		if !ok {
			return nil
		}
		lit := docstringOf(def)
		if lit == nil {
			return nil
		}
		for _, found := range checkArgs(def, lit, required[def]) {
			if !warn.DisabledWarning(f, found.Line, docstringArgs) {
				out = append(out, found)
			}
		}
		return nil
	})
	return out
}

// checkArgs are the findings of one def's docstring, lit.
func checkArgs(def *build.DefStmt, lit *build.StringExpr, required bool) []starfmt.Finding {
	doc := docstring.Parse(lit.Value)
	start, _ := lit.Span()
	at := func(line int, msg string) starfmt.Finding {
		f := starfmt.Finding{Line: start.Line, Col: start.LineRune, Category: docstringArgs, Message: msg}
		if line > 0 {
			// The line of the docstring, indented as the file has it.
			f.Line += line
			text := strings.Split(lit.Value, "\n")[line]
			f.Col = len(text) - len(strings.TrimLeft(text, " \t")) + 1
		}
		return f
	}
	var out []starfmt.Finding
	if doc.ArgumentsLine >= 0 {
		out = append(out, at(doc.ArgumentsLine, `Prefer "Args:" to "Arguments:" when documenting function arguments: script doc reads Args: only.`))
	}
	if doc.ReturnsLine >= 0 {
		if _, err := docstring.ParseType(doc.Returns); err != nil {
			out = append(out, at(doc.ReturnsLine, fmt.Sprintf("Returns: %v%s", err, readAs)))
		}
	}
	if !required && len(doc.Args) == 0 {
		return out
	}
	params := map[string]bool{}
	var missing []string
	for _, p := range def.Params {
		name, op := build.GetParamName(p)
		if name == "" {
			continue // a bare * before keyword-only parameters
		}
		params[op+name] = true
		if _, ok := documentedAs(doc, op+name); !ok {
			missing = append(missing, op+name)
		}
	}
	switch len(missing) {
	case 0:
	case 1:
		out = append(out, at(0, fmt.Sprintf("Argument %q is not documented.", missing[0])))
	default:
		out = append(out, at(0, fmt.Sprintf(`Arguments "%s" are not documented.`, strings.Join(missing, `", "`))))
	}
	for _, a := range doc.Args {
		if !params[a.Name] {
			msg := fmt.Sprintf("Argument %q is documented but doesn't exist in the function signature.", a.Name)
			for _, stars := range []string{"*", "**"} {
				if params[stars+a.Name] {
					msg += fmt.Sprintf(` Do you mean "%s%s"?`, stars, a.Name)
				}
			}
			out = append(out, at(a.Line, msg))
			continue
		}
		if a.Type == "" {
			continue
		}
		if _, err := docstring.ParseType(a.Type); err != nil {
			out = append(out, at(a.Line, fmt.Sprintf("Argument %q: %v%s", a.Name, err, readAs)))
		}
	}
	return out
}

// readAs ends the finding of a type out of the grammar: what the
// reference makes of it.
const readAs = " (script stub reads it as any; script doc shows it as written)."

// documentedAs is the argument of doc that documents the parameter
// name, written as it is: *args as *args.
func documentedAs(doc docstring.Doc, name string) (docstring.Arg, bool) {
	for _, a := range doc.Args {
		if a.Name == name {
			return a, true
		}
	}
	return docstring.Arg{}, false
}

// docstringOf is the string a def's body begins with, after comments;
// nil when it begins with anything else.
func docstringOf(def *build.DefStmt) *build.StringExpr {
	for _, stmt := range def.Body {
		switch stmt := stmt.(type) {
		case *build.CommentBlock:
			continue
		case *build.StringExpr:
			return stmt
		}
		return nil
	}
	return nil
}

// docstringRequired says whether buildifier's function-docstring asks
// the top-level def for a docstring: a public function of
// warn.FunctionLengthDocstringThreshold statements or more.
func docstringRequired(def *build.DefStmt) bool {
	return !strings.HasPrefix(def.Name, "_") && statements(def.Body) >= warn.FunctionLengthDocstringThreshold
}

// statements counts a body's statements as buildifier does: those of
// an if's branches and of a for loop's body too.
func statements(body []build.Expr) int {
	n := 0
	for _, stmt := range body {
		n++
		switch stmt := stmt.(type) {
		case *build.IfStmt:
			n += statements(stmt.True) + statements(stmt.False)
		case *build.ForStmt:
			n += statements(stmt.Body)
		}
	}
	return n
}
