package cli

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// gatesDef is a library function documented with the types of
// @rooda//termination.star's docstrings (n of min_iterations, cmd of
// until_command) and an optional int: a plain type beside unions, which
// buildifier's own check read as "cmd and x not documented".
const gatesDef = `
def tests_pass_from(n, cmd, x = None):
    """Ends the loop once cmd passes, from iteration n on.

    Args:
      n (int): the first iteration whose SUCCESS may end the loop.
      cmd (str | list of str): a shell command line, or a list of words run as they are.
      x (int | None): how many times cmd runs, or None for once.

    Returns:
      function(it): an on_iteration callback.
    """
    return combine(min_iterations(n), until_command(cmd))
`

// teamLibrary makes the library @team of w: team/gates.star, the
// standard library's termination.star with gatesDef after it.
func teamLibrary(t *testing.T, w *workspace) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(w.dir, "team"), 0o755); err != nil {
		t.Fatal(err)
	}
	termination := readText(t, filepath.Join("..", "..", "scripts", "termination.star"))
	w.write("team/gates.star", termination+gatesDef)
	w.write("rooda-config.yml", "libraries:\n  team: team\n")
}

// TestScriptLintReadsTheTypesScriptDocRenders: script lint and script
// doc read a docstring's types by one grammar: the unions and lists of
// termination.star and "int | None" lint clean and are what doc shows; a
// type out of the grammar is a finding at its line, which says what
// doc makes of it.
func TestScriptLintReadsTheTypesScriptDocRenders(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	teamLibrary(t, w)
	if o := w.rooda("script", "lint", "team/gates.star"); o.code != 0 || o.stdout != "" || o.stderr != "" {
		t.Errorf("lint of termination.star's types: exit %d\n%s%s", o.code, o.stdout, o.stderr)
	}
	doc := w.rooda("script", "doc", "@team//gates.star")
	for _, want := range []string{
		"| `n` | int | required | the first iteration",
		"| `cmd` | str \\| list of str | required | a shell command line",
		"| `x` | int \\| None | None | how many times cmd runs",
		"| `timeout` | int \\| float \\| str | 600 |",
	} {
		if doc.code != 0 || !strings.Contains(doc.stdout, want) {
			t.Errorf("script doc @team//gates.star: exit %d, lacks %q\n%s%s", doc.code, want, doc.stdout, doc.stderr)
		}
	}

	w.write("team/wrong.star", `"""Types out of the grammar."""

def gate(n, cmd):
    """Ends the loop once cmd passes.

    Args:
      n (int or None): the first iteration.
      cmd (str | list[str]): a command.
      tries (int): gone.

    Returns:
      tuple[int, str]: n and cmd.
    """
    return n, cmd
`)
	o := w.rooda("script", "lint", "team/wrong.star")
	want := `team/wrong.star:7:7: function-docstring-args: Argument "n": type "int or None": "or" after int: write | between the choices of a type (script stub reads it as any; script doc shows it as written).
team/wrong.star:8:7: function-docstring-args: Argument "cmd": type "str | list[str]": "[" after str | list: write | between the choices of a type (script stub reads it as any; script doc shows it as written).
team/wrong.star:9:7: function-docstring-args: Argument "tries" is documented but doesn't exist in the function signature.
team/wrong.star:12:7: function-docstring-args: Returns: type "tuple[int, str]": "[" after tuple: write | between the choices of a type (script stub reads it as any; script doc shows it as written).
`
	if o.code != 1 || o.stdout != want {
		t.Errorf("lint of types out of the grammar: exit %d, stdout\n%s\nwant\n%s%s", o.code, o.stdout, want, o.stderr)
	}
	doc = w.rooda("script", "doc", "team/wrong.star")
	for _, want := range []string{"gate(n, cmd) -> tuple[int, str]", "| `n` | int or None |"} {
		if doc.code != 0 || !strings.Contains(doc.stdout, want) {
			t.Errorf("script doc team/wrong.star: exit %d, lacks %q, the type as written\n%s%s", doc.code, want, doc.stdout, doc.stderr)
		}
	}
}

// pythonCopy is a script written as Python against the stubs: it reads
// __main__, gives None where the builtins take it, and imports a
// function of the user's library @team, as load() would.
const pythonCopy = `"""A script's Python copy, checked by mypy against rooda script stub."""

from rooda import *
from team.gates import tests_pass_from


def main() -> None:
    work = compose("work", act=[fragment(None, content="Work."), fragment("builtin:fragments/act/emit_signal.md", None)])
    r = iterate(work, on_iteration=tests_pass_from(2, ["go", "test"]), max_iterations=None)
    if r.status != "success":
        exit(1, None)


if __main__:
    main()
`

// TestScriptStubOfAPythonCopy: rooda script stub exports every name of
// the API, __main__ included, with __all__; types a parameter whose
// default is None as optional; and writes a stub for each module of the
// user's libraries, typed from its docstrings, so that a script's
// Python copy passes mypy --strict. A git library not in the cache is
// said, not skipped in silence.
func TestScriptStubOfAPythonCopy(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	teamLibrary(t, w)
	o := w.rooda("script", "stub")
	if o.code != 0 || o.stderr != "" {
		t.Fatalf("script stub: exit %d\n%s%s", o.code, o.stdout, o.stderr)
	}
	api := readText(t, filepath.Join(w.dir, "typings", "rooda", "__init__.pyi"))
	for _, want := range []string{
		"\n__all__ = [\n", "\n    \"__main__\",\n", "\n    \"Iteration\",\n", "\n    \"iterate\",\n", "\n    \"load\",\n",
		"\ndef exit(code: int = ..., reason: str | None = ...) -> None:\n",
		"\ndef fragment(path: str | None = ..., content: str | None = ..., params: dict[str, Any] | None = ...) -> Fragment:\n",
	} {
		if !strings.Contains(api, want) {
			t.Errorf("rooda/__init__.pyi lacks %q", want)
		}
	}
	want := "typings/__builtins__.pyi\ntypings/rooda/__init__.pyi\ntypings/rooda/termination.pyi\ntypings/team/gates.pyi\n"
	if o.stdout != want {
		t.Fatalf("script stub: stdout\n%s\nwant\n%s", o.stdout, want)
	}
	gates := readText(t, filepath.Join(w.dir, "typings", "team", "gates.pyi"))
	for _, want := range []string{
		"# Stub of team.gates (load(\"@team//gates.star\", …)), generated by `rooda script stub`.\n",
		"\ndef tests_pass_from(n: int, cmd: str | list[str], x: int | None = ...) -> Callable[[Iteration], str | tuple[str, str] | None]:\n",
		"\ndef until_command(cmd: str | list[str], timeout: int | float | str = ...) -> ",
	} {
		if !strings.Contains(gates, want) {
			t.Errorf("team/gates.pyi lacks %q:\n%s", want, gates)
		}
	}

	w.write("rooda-config.yml", "libraries:\n  team: team\n  remote:\n    git: https://example.com/remote.git\n")
	o = w.rooda("script", "stub", "again")
	if o.code != 0 || !strings.Contains(o.stdout, "again/team/gates.pyi\n") ||
		!strings.HasPrefix(o.stderr, "no stubs of @remote: library remote (https://example.com/remote.git) is not fetched yet") {
		t.Errorf("script stub with a library not fetched: exit %d\n%s%s", o.code, o.stdout, o.stderr)
	}

	bin, err := exec.LookPath("mypy")
	if err != nil {
		t.Skip("NOT TESTED: mypy --strict over a Python copy: mypy is not installed (bash internal/testdeps/install.sh installs it)")
	}
	w.write("copy.py", pythonCopy)
	cmd := exec.Command(bin, "--strict", "--cache-dir", t.TempDir(), "--no-error-summary", "copy.py")
	cmd.Dir, cmd.Env = w.dir, append(os.Environ(), "MYPYPATH="+filepath.Join(w.dir, "typings"))
	out, err := cmd.CombinedOutput()
	if exit := (*exec.ExitError)(nil); err != nil && !errors.As(err, &exit) {
		t.Fatal(err)
	}
	if err != nil {
		t.Errorf("mypy --strict rejects the Python copy of a script:\n%s", out)
	}
}
