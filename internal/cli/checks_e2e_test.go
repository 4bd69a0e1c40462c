package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestScriptCheckPathsAndTestNames: check takes files and directories (a
// directory: every .star file below it), and a *_test.star file may use
// the names of script tests, assert and fake_agent.
func TestScriptCheckPathsAndTestNames(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	if err := os.MkdirAll(filepath.Join(w.dir, "lib", "deep"), 0o755); err != nil {
		t.Fatal(err)
	}
	w.write("lib/helpers.star", "def twice(n):\n    return 2 * n\n")
	w.write("lib/deep/helpers_test.star", "load('../helpers.star', 'twice')\n\ndef test_twice():\n    a = fake_agent(outputs = ['x'])\n    assert.eq(twice(2), 4)\n")
	w.write("lib/notes.md", "not a script\n")
	w.write("main.star", "p = compose('p', act = [fragment(content = 'Work.')])\n")
	o := w.rooda("script", "check", "lib", "main.star")
	want := "lib/deep/helpers_test.star: ok\nlib/helpers.star: ok\nmain.star: ok\n"
	if o.code != 0 || o.stdout != want || o.stderr != "" {
		t.Errorf("exit %d, stdout:\n%s\nstderr:\n%s", o.code, o.stdout, o.stderr)
	}
	// A script that is no test does not know the tests' names.
	w.write("main.star", "assert.eq(1, 1)\n")
	o = w.rooda("script", "check", "lib", "main.star")
	if o.code != 1 || o.stderr != "Error: main.star:1:1: undefined: assert\n" {
		t.Errorf("exit %d, stderr:\n%s", o.code, o.stderr)
	}
}

// TestScriptCheckBuiltinCalls: check reports, with Error: and
// file:line:col, an unknown keyword argument of a builtin, a literal of
// the wrong type and callbacks that cannot be called as f(it), and
// leaves to the run what the source does not tell (a variable's value, a
// function a call returns).
func TestScriptCheckBuiltinCalls(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	w.write("main.star", `p = procedure("build")
iterate(p, max_iteration = 3)
iterate(p, max_iterations = "3", timeout = "90s")
iterate(p, on_iteration = lambda: None)

def two(a, b):
    return None

iterate(p, on_iteration = two, context = lambda n: ["x"])

def judge(it, extra = 1):
    return None

n = "3"
iterate(p, max_iterations = n, on_iteration = judge)
fragment(content = 3)
compose(None)
`)
	o := w.rooda("script", "check", "main.star")
	want := `Error: main.star:2:12: iterate: unexpected keyword argument "max_iteration" (did you mean max_iterations?)
Error: main.star:3:29: iterate: max_iterations must be an int, got string "3"
Error: main.star:4:27: iterate: on_iteration is called as f(it), but the lambda takes no arguments
Error: main.star:9:27: iterate: on_iteration is called as f(it), but def two needs 2 arguments
Error: main.star:16:20: fragment: content must be a str, got int 3
Error: main.star:17:9: compose: name must be a str, got NoneType
`
	if o.code != 1 || o.stderr != want || o.stdout != "" {
		t.Errorf("exit %d, stdout %q, stderr:\n%s", o.code, o.stdout, o.stderr)
	}
}

// TestScriptCheckLoadHints: a name load() does not find suggests the
// closest the module defines; a name the standard library defines says
// how to load it; a module the standard library lacks lists those it has.
func TestScriptCheckLoadHints(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	w.write("main.star", `load("@rooda//termination.star", "until_comand")
load("@rooda//nope.star", "x")
on_iteration = min_iterations(2)
`)
	o := w.rooda("script", "check", "main.star")
	want := `Error: main.star:2:1: cannot load @rooda//nope.star: file not found: @rooda//nope.star (the standard library has @rooda//termination.star)
Error: main.star:3:16: undefined: min_iterations (@rooda//termination.star defines it: load("@rooda//termination.star", "min_iterations"))
Error: main.star:1:35: @rooda//termination.star does not define until_comand (did you mean until_command?)
`
	if o.code != 1 || o.stderr != want {
		t.Errorf("exit %d, stderr:\n%s", o.code, o.stderr)
	}
}

// TestScriptRunHints: the same hints when the script runs, and a wrong
// int shows the value it got.
func TestScriptRunHints(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	for _, tc := range []struct{ script, want string }{
		{`x = until_command("true")` + "\n",
			`Error: main.star:1:5: undefined: until_command (@rooda//termination.star defines it: load("@rooda//termination.star", "until_command"))`},
		{`load("@rooda//nope.star", "x")` + "\n",
			"Error: cannot load @rooda//nope.star: file not found: @rooda//nope.star (the standard library has @rooda//termination.star)"},
		{`iterate(procedure("build"), max_iterations = "3")` + "\n",
			`Error in iterate: max_iterations must be an int, got string "3"`},
	} {
		w.write("main.star", tc.script)
		o := w.runScript("main.star", "--dry-run")
		if o.code != 1 || !strings.Contains(o.stderr, tc.want+"\n") {
			t.Errorf("%s: exit %d, stderr:\n%s", tc.script, o.code, o.stderr)
		}
	}
}

// TestScriptBadVerdictExplained: a verdict on_iteration returns that is
// none is explained, with the one it was close to, before the loop says
// "Aborting".
func TestScriptBadVerdictExplained(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, step{"output": "done"})
	w.write("main.star", `def judge(it):
    return "SUCCESS"

iterate(compose("p", act = [fragment(content = "Work.")]), max_iterations = 2, on_iteration = judge)
`)
	o := w.runScript("main.star", "--ai-cmd", w.aiCmd())
	why := `ERROR: Iteration 1/2: on_iteration (judge) returned "SUCCESS", which is no verdict (did you mean "success"?): return None to keep the host's verdict, "continue" to go on, "success" to end the loop as done, "failure" to count a failed iteration, "abort" to stop the loop as failed, or "stop" to end it without a failure; or a pair (verdict, reason)` + "\n"
	at, aborting := strings.Index(o.stderr, why), strings.Index(o.stderr, "ERROR: Aborting")
	if o.code != 1 || at < 0 || aborting < at {
		t.Errorf("exit %d, stderr:\n%s", o.code, o.stderr)
	}
}
