package buildifier

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bazelbuild/buildtools/warn"

	"rooda/host/starfmt"
)

// TestLintIdioms: a parameter no one uses (a callback's) and a test
// function without a docstring in a *_test.star file are rooda idioms;
// an unused local variable is a finding, and so is a long public function
// without a docstring elsewhere.
func TestLintIdioms(t *testing.T) {
	src := []byte(`def judge(it, *rest, **kw):
    return lambda x: None

def test_one():
    unused = 1
    a = 1
    b = 2
    c = 3
    d = 4
    return a + b + c + d
`)
	checks, _ := starfmt.ParseChecks("default")
	var got []string
	for _, f := range Lint("x_test.star", src, checks) {
		got = append(got, f.String())
	}
	want := []string{`x_test.star:5:5: unused-variable: Variable "unused" is unused. Please remove it.`}
	if !slices.Equal(got, want) {
		t.Errorf("in a test file: got %q, want %q", got, want)
	}
	got = nil
	for _, f := range Lint("x.star", src, checks) {
		got = append(got, f.Category)
	}
	if !slices.Equal(got, []string{"function-docstring", "unused-variable"}) {
		t.Errorf("in a script: got %v", got)
	}
}

func TestLintSyntaxError(t *testing.T) {
	got := Lint("x.star", []byte("x = 1\ny = )\n"), nil)
	if len(got) != 1 || got[0].String() != "x.star:2:5: syntax: syntax error near )" {
		t.Errorf("got %v", got)
	}
}

// TestChecksAreBuildifiers: every check rooda offers is one of
// buildifier's, which exits the process on a name it does not know: an
// upgrade of buildtools that renames one fails here, not in a user's
// --warnings all.
func TestChecksAreBuildifiers(t *testing.T) {
	for name := range starfmt.Checks {
		if !slices.Contains(warn.AllWarnings, name) {
			t.Errorf("%s is not one of buildifier's warnings", name)
		}
	}
}

// TestLintFilesTellsASyntaxErrorOnce: a script that does not parse is
// buildifier's syntax finding, unless script check found it wrong:
// then only script check's finding is told.
func TestLintFilesTellsASyntaxErrorOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), "broken.star")
	if err := os.WriteFile(path, []byte("def f(:\n    pass\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	alone, err := starfmt.LintFiles([]string{path}, nil, nil)
	if err != nil || len(alone) != 1 || alone[0].Category != starfmt.Syntax {
		t.Errorf("without script check's findings: %v, %v", alone, err)
	}
	checked := []starfmt.Finding{{File: path, Line: 1, Col: 7, Category: starfmt.Check, Message: "got ':', want parameter"}}
	both, err := starfmt.LintFiles([]string{path}, nil, checked)
	if err != nil || !slices.Equal(both, checked) {
		t.Errorf("with script check's finding: %v, %v", both, err)
	}
}

// TestLintDocstringArgs: function-docstring-args reads a docstring as
// script doc does. A union is a type; *args is documented with its
// star; "Arguments:" is not Args:; a long public function documents
// every parameter; the type Returns: begins with is held to the grammar
// too; a comment silences the check where it is; and
// --warnings -function-docstring-args leaves it out.
func TestLintDocstringArgs(t *testing.T) {
	src := []byte(`def typed(cmd, x = None):
    """Typed.

    Args:
      cmd (str | list of str): a command.
      x (int | None): a count.
    """
    return cmd, x

def starred(*callbacks, **kw):
    """Starred.

    Args:
      callbacks (function(it)): the callbacks.
      **kw (dict): more.
    """
    return callbacks, kw

def headed(a):
    """Headed.

    Arguments:
      a: an a.
    """
    return a

def long(a, b):
    """Long, its Args unsaid."""
    x = a
    x = b
    x = 3
    x = 4
    return x

def silenced(a, b):
    """Silenced.

    Args:
      a: an a.
    """  # buildozer: disable=function-docstring-args
    return a, b

def returned(a):
    """Returned.

    Returns:
      int or None: the count.
    """
    return a
`)
	checks, _ := starfmt.ParseChecks("default")
	var got []string
	for _, f := range Lint("lib.star", src, checks) {
		got = append(got, f.String())
	}
	want := []string{
		`lib.star:11:5: function-docstring-args: Argument "*callbacks" is not documented.`,
		`lib.star:14:7: function-docstring-args: Argument "callbacks" is documented but doesn't exist in the function signature. Do you mean "*callbacks"?`,
		`lib.star:22:5: function-docstring-args: Prefer "Args:" to "Arguments:" when documenting function arguments: script doc reads Args: only.`,
		`lib.star:28:5: function-docstring-args: Arguments "a", "b" are not documented.`,
		`lib.star:47:7: function-docstring-args: Returns: type "int or None": "or" after int: write | between the choices of a type (script stub reads it as any; script doc shows it as written).`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	without, _ := starfmt.ParseChecks("-function-docstring-args")
	if found := Lint("lib.star", src, without); len(found) != 0 {
		t.Errorf("without the check: %v", found)
	}
}
