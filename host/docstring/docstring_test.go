package docstring_test

import (
	"io/fs"
	"strings"
	"testing"

	"go.starlark.net/syntax"

	"rooda/host/docstring"
	"rooda/scripts"
)

// TestParseType: the types the reference and the libraries write are
// read as unions, lists, tuples and functions, and written back as they
// were; what is not in the grammar is refused, saying where.
func TestParseType(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"str", "str"},
		{"int | None", "int | None"},
		{"str|list of str", "str | list of str"},
		{"int | float | str", "int | float | str"},
		{"list of int | float | str", "list of int | float | str"},
		{"tuple of str", "tuple of str"},
		{"function(it)", "function(it)"},
		{"function(number, previous)", "function(number, previous)"},
		{"agent | str | list | function(number) | function(number, previous)", "agent | str | list | function(number) | function(number, previous)"},
	} {
		typ, err := docstring.ParseType(tc.text)
		if err != nil || typ.String() != tc.want {
			t.Errorf("ParseType(%q) = %q, %v; want %q", tc.text, typ.String(), err, tc.want)
		}
	}
	typ, _ := docstring.ParseType("str | list of str")
	if choices := typ.Choices(); len(choices) != 2 || choices[1].Name != "list" || choices[1].Of.Name != "str" {
		t.Errorf("str | list of str: %+v", choices)
	}
	// "list of" takes all that follows: its union is the items'.
	typ, _ = docstring.ParseType("list of int | str")
	if typ.Name != "list" || len(typ.Of.Union) != 2 {
		t.Errorf("list of int | str: %+v", typ)
	}
	for _, tc := range []struct{ text, want string }{
		{"int or None", `"or" after int: write | between the choices of a type`},
		{"int |", "a type is missing at the end"},
		{"", "a type is missing at the end"},
		{"list of", "a type is missing at the end"},
		{"str | | None", `"|" where a type should be`},
		{"function(it", ", or ) is missing at the end"},
		{"function(a b)", `"b" where , or ) should be`},
		{"list[str]", `"[" after list`},
		{"2x", `"2x" where a type should be`},
	} {
		_, err := docstring.ParseType(tc.text)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseType(%q): %v, want an error with %q", tc.text, err, tc.want)
		}
	}
}

// TestParse: a docstring's text, its Args: with their types and their
// lines (counted in the string as written), a description that wraps,
// and the type Returns: begins with.
func TestParse(t *testing.T) {
	raw := `
    Ends the loop once cmd passes.

    Args:
      cmd (str | list of str): a shell command line, run
        by sh -c.
      *rest: more.
      x: untyped.

    Returns:
      function(it): an on_iteration callback.
    `
	d := docstring.Parse(raw)
	if d.Text != "Ends the loop once cmd passes." || d.Returns != "function(it)" || d.ReturnsLine != 10 || d.ArgumentsLine != -1 {
		t.Errorf("text %q, returns %q at %d, Arguments: at %d", d.Text, d.Returns, d.ReturnsLine, d.ArgumentsLine)
	}
	want := []docstring.Arg{
		{Name: "cmd", Type: "str | list of str", Desc: "a shell command line, run by sh -c.", Line: 4},
		{Name: "*rest", Desc: "more.", Line: 6},
		{Name: "x", Desc: "untyped.", Line: 7},
	}
	if len(d.Args) != len(want) {
		t.Fatalf("args %+v", d.Args)
	}
	for i := range want {
		if d.Args[i] != want[i] {
			t.Errorf("arg %d: %+v, want %+v", i, d.Args[i], want[i])
		}
	}
	if a, ok := d.Arg("rest"); !ok || a.Name != "*rest" {
		t.Errorf("Arg(rest): %+v %v", a, ok)
	}
	if d := docstring.Parse("Does it.\n\n    Arguments:\n      x: y.\n"); d.ArgumentsLine != 2 || len(d.Args) != 0 || d.ReturnsLine != -1 {
		t.Errorf("Arguments: %+v", d)
	}
}

// TestTerminationTypes: every parameter of every function of the
// standard library, @rooda//termination.star, is documented with a type
// the grammar reads: the types a library writes are these.
func TestTerminationTypes(t *testing.T) {
	src, err := fs.ReadFile(scripts.FS, "termination.star")
	if err != nil {
		t.Fatal(err)
	}
	f, err := syntax.Parse("termination.star", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	var typed []string
	for _, stmt := range f.Stmts {
		def, ok := stmt.(*syntax.DefStmt)
		if !ok || strings.HasPrefix(def.Name.Name, "_") {
			continue
		}
		d := docstring.Parse(def.Body[0].(*syntax.ExprStmt).X.(*syntax.Literal).Value.(string))
		for _, p := range def.Params {
			name := paramName(p)
			a, ok := d.Arg(name)
			if !ok || a.Type == "" {
				t.Errorf("%s: %s has no type", def.Name.Name, name)
				continue
			}
			if _, err := docstring.ParseType(a.Type); err != nil {
				t.Errorf("%s: %s: %v", def.Name.Name, name, err)
			}
			typed = append(typed, a.Type)
		}
		if _, err := docstring.ParseType(d.Returns); err != nil {
			t.Errorf("%s returns: %v", def.Name.Name, err)
		}
	}
	// The unions of until_command are among them.
	if !strings.Contains(strings.Join(typed, ";"), "str | list of str;int | float | str") {
		t.Errorf("termination.star's types: %q", typed)
	}
}

func paramName(p syntax.Expr) string {
	switch p := p.(type) {
	case *syntax.Ident:
		return p.Name
	case *syntax.BinaryExpr:
		return p.X.(*syntax.Ident).Name
	case *syntax.UnaryExpr:
		return p.X.(*syntax.Ident).Name
	}
	return "?"
}
