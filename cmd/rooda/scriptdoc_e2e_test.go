package main

import (
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
		") -> LoopResult:\n", "on_iteration: Callable[[Iteration], str | None]",
		"\ndef run(cmd: str | list, timeout: int | float | str = ..., dir: Worktree = ...) -> CommandResult:\n",
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
