package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestScriptDocTypes: rooda script doc documents the types a script
// meets, and its stub declares them as classes with typed fields, assert
// included, the standard library left to load().
func TestScriptDocTypes(t *testing.T) {
	stub, stderr, code := exe(t, "script", "doc", "--format", "stub")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	for _, want := range []string{
		"\nclass Iteration:\n", "\n    outcome: str\n", "\n    signal: str | None\n",
		"\nclass LoopResult:\n", "\n    last: Iteration\n", "\n    stats: Stats\n",
		"\nclass CommandResult:\n", "\n    exit_code: int\n",
		"\nclass FakeAgent:\n", "\n    prompts: list[str]\n",
		"\nclass Procedure:\n", "\n    def render(self, ",
		"\nclass Assert:\n", "\n    def contains(container: ",
		") -> LoopResult:\n", "on_iteration: Callable[[Iteration], str | tuple[str, str] | None]",
		"\ndef run(cmd: str | list[str], timeout: int | float | str = ..., dir: Worktree | None = ..., safe: bool = ...) -> CommandResult:\n",
	} {
		if !strings.Contains(stub, want) {
			t.Errorf("the stub lacks %q", want)
		}
	}
	if strings.Contains(stub, "\ndef until_command(") {
		t.Error("the stub declares a library function as a global; a script must load it")
	}
	for name, want := range map[string]string{
		"iteration":      "| `.consecutive_failures` | int |",
		"loop_result":    "| `.last` | iteration |",
		"command_result": "| `.timed_out` | bool |",
		"fake_agent":     "| `.prompts` | list of str |",
		"procedure":      "| `.name` | str |",
	} {
		out, stderr, code := exe(t, "script", "doc", name)
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("script doc %s: exit %d, lacks %q\n%s%s", name, code, want, out, stderr)
		}
	}
}

// TestScriptDocOfALibrary: rooda script doc FILE.star shows a user
// library's docstrings, running none of it.
func TestScriptDocOfALibrary(t *testing.T) {
	helpers := filepath.Join("..", "..", "scripts", "examples", "team", "helpers.star")
	out, stderr, code := exe(t, "script", "doc", helpers)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	for _, want := range []string{
		"The team's helpers: one place for how every procedure",
		"### passes\n\n```python no-run: a signature\npasses(cmd, timeout=\"10m\")\n```\n\nAn on_iteration that ends the loop with success once cmd exits 0.\n",
		"| `task` | any | required | what the agent is asked to do, as text. |",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("script doc %s lacks %q:\n%s", helpers, want, out)
		}
	}
	w := newWorkspace(t)
	w.write("lib.star", "def f():\n    \"\"\"Doc.\"\"\"\n    pass\nfail(\"ran\")\n")
	out, stderr, code = exe(t, "script", "doc", filepath.Join(w.dir, "lib.star"))
	if code != 0 || !strings.Contains(out, "### f\n") || strings.Contains(stderr, "ran") {
		t.Errorf("a library that fails when run: exit %d\n%s%s", code, out, stderr)
	}
}

// TestScriptDocLookups: script doc opens a module as load() names it
// (@rooda//…, @team//… of --lib or the configuration), and shows one
// parameter or one field; a mistyped one is suggested.
func TestScriptDocLookups(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	if err := os.MkdirAll(filepath.Join(w.dir, "team"), 0o755); err != nil {
		t.Fatal(err)
	}
	w.write("team/greet.star", "\"\"\"Greetings.\"\"\"\n\ndef hello(name):\n    \"\"\"Says hello.\n\n    Args:\n      name: who is greeted, as the\n        roll call has it.\n    \"\"\"\n    return \"hello \" + name\n")
	w.write("rooda-config.yml", "libraries:\n  team: team\n")
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"@rooda//termination.star"}, []string{"# @rooda//termination.star\n", "### until_command\n", "(run by sh -c), or a list of words run as they are, without a shell. |"}},
		{[]string{"@team//greet.star"}, []string{"# @team//greet.star\n\nGreetings.\n", "| `name` | any | required | who is greeted, as the roll call has it. |"}},
		{[]string{"--lib", "crew=team", "@crew//greet.star"}, []string{"# @crew//greet.star\n"}},
		{[]string{"iterate.timeout"}, []string{"### iterate.timeout\n\nA parameter of iterate(): int | float | str, default None.\n\nstop an iteration after this long"}},
		{[]string{"iteration.outcome"}, []string{"### iteration.outcome\n\nA field of iteration: str.\n\n\"continue\", \"success\""}},
		{[]string{"until_command.cmd"}, []string{"A parameter of until_command(): str | list of str, required.\n\na shell command line"}},
	} {
		o := w.rooda(append([]string{"script", "doc"}, tc.args...)...)
		if o.code != 0 {
			t.Errorf("script doc %s: exit %d\n%s", strings.Join(tc.args, " "), o.code, o.stderr)
			continue
		}
		for _, want := range tc.want {
			if !strings.Contains(o.stdout, want) {
				t.Errorf("script doc %s lacks %q:\n%s", strings.Join(tc.args, " "), want, o.stdout)
			}
		}
	}
	o := w.rooda("script", "doc", "iterate.timeot")
	if o.code != 1 || !strings.Contains(o.stderr, `no "iterate.timeot" in the reference; did you mean iterate.timeout?`) {
		t.Errorf("a mistyped parameter: exit %d\n%s", o.code, o.stderr)
	}
	o = w.rooda("script", "doc", "@nobody//greet.star")
	if o.code != 1 || !strings.Contains(o.stderr, "unknown library @nobody (libraries: @rooda, @team)") {
		t.Errorf("an unknown library: exit %d\n%s", o.code, o.stderr)
	}
}

// TestScriptStub: rooda script stub writes the package of stubs into
// typings (or the DIR given) and names each file: __init__.pyi is what
// script doc --format stub prints, the standard library is a module of
// its own, typed, and __builtins__.pyi makes the names builtins.
func TestScriptStub(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	o := w.rooda("script", "stub")
	want := "typings/__builtins__.pyi\ntypings/rooda/__init__.pyi\ntypings/rooda/termination.pyi\n"
	if o.code != 0 || o.stdout != want {
		t.Fatalf("script stub: exit %d, stdout\n%s\nwant\n%s%s", o.code, o.stdout, want, o.stderr)
	}
	printed := w.rooda("script", "doc", "--format", "stub")
	if init := readText(t, filepath.Join(w.dir, "typings", "rooda", "__init__.pyi")); init != printed.stdout {
		t.Errorf("rooda/__init__.pyi is not what script doc --format stub prints:\n%s", init)
	}
	termination := readText(t, filepath.Join(w.dir, "typings", "rooda", "termination.pyi"))
	for _, want := range []string{
		"from rooda import Iteration\n",
		"\ndef until_command(cmd: str | list[str], timeout: int | float | str = ...) -> Callable[[Iteration], str | tuple[str, str] | None]:\n",
		"\ndef combine(*callbacks: Callable[[Iteration], str | tuple[str, str] | None]) -> ",
	} {
		if !strings.Contains(termination, want) {
			t.Errorf("rooda/termination.pyi lacks %q:\n%s", want, termination)
		}
	}
	if got := readText(t, filepath.Join(w.dir, "typings", "__builtins__.pyi")); !strings.HasSuffix(got, "\nfrom rooda import *\n") {
		t.Errorf("__builtins__.pyi:\n%s", got)
	}
	if o := w.rooda("script", "stub", "editor/stubs"); o.code != 0 || !strings.HasPrefix(o.stdout, "editor/stubs/__builtins__.pyi\n") {
		t.Errorf("script stub DIR: exit %d\n%s%s", o.code, o.stdout, o.stderr)
	}
	if o := w.rooda("script", "stub", "--", "after/dash"); o.code != 0 || !strings.HasPrefix(o.stdout, "after/dash/__builtins__.pyi\n") {
		t.Errorf("script stub -- DIR: exit %d\n%s%s", o.code, o.stdout, o.stderr)
	}
	if o := w.rooda("script", "stub", "a", "b"); o.code != 1 || !strings.Contains(o.stderr, "script stub takes at most one DIR, got 2: a b") {
		t.Errorf("two DIRs: exit %d\n%s", o.code, o.stderr)
	}
}

// TestScriptStubOfLibraries: script stub writes a stub per module of a
// library, but not of the fixtures of its tests under testdata/ (one
// that does not parse, on purpose, fails nothing); and two modules whose
// Python names are one (@my-team//x.star and @my_team//x.star, both
// my_team.x) are an error that names both, not one stub silently
// overwriting the other, the other stubs written all the same.
func TestScriptStubOfLibraries(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	for _, dir := range []string{"team/testdata", "team/checks/testdata", "mine", "ours"} {
		must(t, os.MkdirAll(filepath.Join(w.dir, dir), 0o755))
	}
	def := "def greet(name):\n    \"\"\"Greets.\n\n    Args:\n      name (str): who.\n    \"\"\"\n    return name\n"
	w.write("team/gates.star", def)
	w.write("team/testdata/broken.star", "def (\n")
	w.write("team/checks/testdata/fixture.star", def)
	w.write("rooda-config.yml", "libraries:\n  team: team\n")
	o := w.rooda("script", "stub")
	want := "typings/__builtins__.pyi\ntypings/rooda/__init__.pyi\ntypings/rooda/termination.pyi\ntypings/team/gates.pyi\n"
	if o.code != 0 || o.stdout != want {
		t.Errorf("script stub of a library with testdata: exit %d, stdout\n%s\nwant\n%s%s", o.code, o.stdout, want, o.stderr)
	}

	w.write("mine/x.star", def)
	w.write("ours/x.star", strings.ReplaceAll(def, "greet", "welcome"))
	w.write("rooda-config.yml", "libraries:\n  team: team\n  my-team: mine\n  my_team: ours\n")
	o = w.rooda("script", "stub", "clash")
	if o.code != 1 || !strings.Contains(o.stderr, "no stubs of @my-team//x.star and @my_team//x.star: they are the one Python module my_team.x (my_team/x.pyi), and one stub would overwrite the other; rename one") {
		t.Errorf("script stub of two modules of one Python name: exit %d\n%s", o.code, o.stderr)
	}
	if !strings.Contains(o.stdout, "clash/team/gates.pyi\n") || strings.Contains(o.stdout, "my_team") {
		t.Errorf("the stubs written beside the clash:\n%s", o.stdout)
	}
}
