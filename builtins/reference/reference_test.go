package reference_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.starlark.net/starlark"

	"rooda/builtins"
	"rooda/builtins/reference"
	"rooda/host"
	"rooda/host/docstring"
	"rooda/internal/golden"
	"rooda/internal/hosttest"
	"rooda/scripts"
)

// docsFile is the committed reference, from this package's directory.
var docsFile = filepath.Join("..", "..", "docs", "builtins.md")

func entries(t *testing.T) []reference.Entry {
	t.Helper()
	wd, _ := os.Getwd()
	f := hosttest.New(t, nil)
	stdlib, err := reference.Stdlib(f.Runtime(), scripts.FS)
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(wd)
	return reference.Entries(stdlib)
}

// TestCommittedReference: docs/builtins.md is what the registry and the
// standard library say today (go test ./builtins/reference -update
// rewrites it).
func TestCommittedReference(t *testing.T) {
	got := reference.Markdown(entries(t))
	if golden.Updating() {
		if err := os.WriteFile(docsFile, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(docsFile)
	if err != nil || string(want) != got {
		t.Errorf("%s is out of date (%v): run go test ./builtins/reference -update", docsFile, err)
	}
}

// TestEverythingIsDocumented: every builtin, method, value, test helper
// and library function has a description; every builtin's parameters
// have one too, and so does every function of the registry an example.
func TestEverythingIsDocumented(t *testing.T) {
	var library int
	for _, e := range entries(t) {
		if strings.TrimSpace(e.Doc) == "" {
			t.Errorf("%s has no description", e.Name)
		}
		if e.Kind == "library" {
			library++
		}
		for _, p := range append(e.Params, e.Fields...) {
			if p.Doc == "" || p.Type == "" {
				t.Errorf("%s: %s has no description or type", e.Name, p.Name)
			}
		}
		if e.Kind == "function" && e.Example == "" {
			t.Errorf("%s has no example", e.Name)
		}
	}
	if library == 0 {
		t.Error("no standard library function was documented")
	}
}

// TestTypesAreInTheGrammar: every type the reference gives (a
// parameter's, a field's, a value's, what a function returns) is one
// the docstring grammar reads, the grammar script lint holds a
// library's docstrings to.
func TestTypesAreInTheGrammar(t *testing.T) {
	for _, e := range entries(t) {
		types := []string{e.Type, e.Returns}
		for _, p := range append(e.Params, e.Fields...) {
			types = append(types, p.Type)
		}
		for _, typ := range types {
			if typ == "" {
				continue
			}
			if _, err := docstring.ParseType(typ); err != nil {
				t.Errorf("%s: %v", e.Name, err)
			}
		}
	}
}

// TestExamplesRun runs every example of the reference as its fence
// says: a script test (# NAME_test.star) as rooda script test runs it,
// whose tests must all pass and be more than none; any other as piped
// into rooda script repl, which must meet no error.
func TestExamplesRun(t *testing.T) {
	for _, e := range entries(t) {
		if e.Example == "" {
			continue
		}
		t.Run(e.Name, func(t *testing.T) {
			var out bytes.Buffer
			if name := e.ExampleTest(); name != "" {
				f := hosttest.New(t, map[string]string{name: e.Example + "\n"})
				f.Test = true
				sum, err := host.RunTests(context.Background(), []string{name}, host.TestOptions{Run: f.Options(), Out: &out})
				if err != nil || sum.Failed > 0 || sum.Passed == 0 {
					t.Errorf("example of %s, run as rooda script test %s: %v\n%s%s\n--- the example:\n%s", e.Name, name, err, out.String(), f.Stderr.String(), e.Example)
				}
				return
			}
			// As rooda script repl has it: a dry run, with the test builtins.
			f := hosttest.New(t, nil)
			f.DryRun = true
			opts := f.Options()
			opts.Predeclared = builtins.WithTestNames(builtins.Predeclared(nil, true))
			rt, err := host.New(opts)
			if err == nil {
				err = rt.REPL(context.Background(), strings.NewReader(e.Example+"\n"), &out, false, nil)
			}
			if err != nil {
				t.Errorf("example of %s, piped into rooda script repl: %v\n%s%s\n--- the example:\n%s", e.Name, err, out.String(), f.Stderr.String(), e.Example)
			}
		})
	}
}

func TestFindAndFormats(t *testing.T) {
	all := entries(t)
	found := reference.Find(all, "iterate")
	ok := len(found) == 1
	if !ok || !strings.HasPrefix(reference.Sections(found), "### iterate\n\n```python no-run: a signature\niterate(procedure, max_iterations=None, unlimited=False,") {
		t.Errorf("iterate: %v\n%s", ok, reference.Sections(found))
	}
	if len(reference.Find(all, "min_iterations")) == 0 {
		t.Error("the library's min_iterations is not in the reference")
	}
	// A function and the type it returns share a name: both are found.
	if found := reference.Find(all, "fake_agent"); len(found) != 2 || !strings.Contains(reference.Sections(found), "| `.prompts` | list of str |") {
		t.Errorf("fake_agent: %d entries\n%s", len(found), reference.Sections(found))
	}
	stub := reference.Stub(all)
	for _, want := range []string{
		"\ndef fragment(path: str | None = ..., content: str | None = ..., params: dict[str, Any] | None = ...) -> Fragment:\n",
		"\nargs: tuple[str, ...]\n",
		"\nclass Iteration:\n", "\n    outcome: str\n",
		"\nclass LoopResult:\n", "\n    last: Iteration\n",
		"\n    def render(self, iteration: int = ...",
		"\nclass Assert:\n    \"In script tests, the predeclared assert: assert.eq(got, want), …\"\n    @staticmethod\n    def eq(got: Any, want: Any, msg: str | None = ...) -> None:\n",
		"on_iteration: Callable[[Iteration], str | tuple[str, str] | None] | None = ...",
		"\n#   min_iterations(n): ",
	} {
		if !strings.Contains(stub, want) {
			t.Errorf("stub lacks %q", want)
		}
	}
	// The standard library is loaded, never predeclared.
	if strings.Contains(stub, "\ndef min_iterations(") {
		t.Error("the stub declares a library function as a global")
	}
	if js, err := reference.JSON(all); err != nil || !strings.Contains(js, `"name": "fake_agent"`) {
		t.Errorf("json: %v", err)
	}
}

func TestHelp(t *testing.T) {
	all := entries(t)
	var out strings.Builder
	help := reference.Help(all, &out)
	thread := &starlark.Thread{}
	if _, err := starlark.Call(thread, help, starlark.Tuple{starlark.String("run")}, nil); err != nil || !strings.HasPrefix(out.String(), "### run\n") {
		t.Errorf("help(\"run\"): %v\n%s", err, out.String())
	}
	out.Reset()
	fn := starlark.NewBuiltin("getenv", nil)
	if _, err := starlark.Call(thread, help, starlark.Tuple{fn}, nil); err != nil || !strings.HasPrefix(out.String(), "### getenv\n") {
		t.Errorf("help(getenv): %v\n%s", err, out.String())
	}
	out.Reset()
	if _, err := starlark.Call(thread, help, nil, nil); err != nil || !strings.Contains(out.String(), "iterate") {
		t.Errorf("help(): %v\n%s", err, out.String())
	}
	if _, err := starlark.Call(thread, help, starlark.Tuple{starlark.String("nothing")}, nil); err == nil {
		t.Error("help of an unknown name did not fail")
	}
}

// TestEveryPredeclaredNameIsInTheReference: nothing a script or a test
// sees goes undocumented.
func TestEveryPredeclaredNameIsInTheReference(t *testing.T) {
	all := entries(t)
	documented := map[string]bool{}
	for _, e := range all {
		documented[e.Name] = true
		if module, _, ok := strings.Cut(e.Name, "."); ok && e.Kind == "test" {
			documented[module] = true
		}
	}
	for name := range builtins.TestPredeclared(nil) {
		if _, language := starlark.Universe[name]; language {
			continue // str, list…: the language's own, guarded; its spec documents them
		}
		if !documented[name] {
			t.Errorf("%s is predeclared but not in the reference", name)
		}
	}
}

func TestHelpOfValues(t *testing.T) {
	var out strings.Builder
	help := reference.Help(entries(t), &out)
	d := builtins.Predeclared(nil, false)
	for _, v := range []starlark.Value{d["json"], d["iterate"]} {
		out.Reset()
		if _, err := starlark.Call(&starlark.Thread{}, help, starlark.Tuple{v}, nil); err != nil {
			t.Errorf("help(%s): %v", v, err)
		}
	}
}

// TestModule: a user library is documented from its source, running
// nothing: its docstring, each public function's signature, text and
// Args, a description that wraps joined into one.
func TestModule(t *testing.T) {
	path := filepath.Join(t.TempDir(), "helpers.star")
	src := `"""Team helpers."""

fail("never run")

def passes(cmd, timeout = "10m", *rest, **opts):
    """Ends the loop once cmd passes.

    Args:
      cmd: a shell command line, run
        by sh -c.
      timeout: how long it may take.

    It runs nothing else.
    """
    return None

def _private():
    pass
`
	doc, entries, err := reference.Module(path, []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	got := reference.ModuleMarkdown("helpers.star", doc, entries)
	want := "# helpers.star\n\nTeam helpers.\n\n### passes\n\n```python no-run: a signature\npasses(cmd, timeout=\"10m\", *rest, **opts)\n```\n\nEnds the loop once cmd passes.\n\nIt runs nothing else.\n\n" +
		"| parameter | type | default | |\n| --- | --- | --- | --- |\n| `cmd` | any | required | a shell command line, run by sh -c. |\n| `timeout` | any | \"10m\" | how long it may take. |\n| `*rest` | any |  |  |\n| `**opts` | any |  |  |\n"
	if got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}
