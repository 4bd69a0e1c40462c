package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestScriptDryRunReportsEveryLoop: a loop that is not ready (its agent
// is not installed) does not end a script's dry run: every loop is
// reported, the script runs to its end, and the dry run ends naming the
// loops not ready, exit 1.
func TestScriptDryRunReportsEveryLoop(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	w.write("main.star", `
iterate(compose("first", act = [fragment(content = "One.")]), agent = "no-such-agent-cli")
iterate(compose("second", act = [fragment(content = "Two.")]), agent = "`+w.aiCmd()+`")
iterate(compose("third", act = [fragment(content = "Three.")]), agent = "no-such-agent-cli")
print("the script ran to its end")
`)
	o := w.runScript("main.star", "--dry-run")
	o.expect(t, 1, "the script ran to its end\n", "Error: Dry-run validation failed: 2 of 3 loops not ready to execute; mend what their ✗ lines say\n")
	for _, want := range []string{
		"=== Dry-Run: first ===\n", "=== Dry-Run: second ===\n", "=== Dry-Run: third ===\n",
		"Dry-run complete. Ready to execute: rooda script run main.star\n",
		"=== Dry-run of the script: 3 loops reported, 2 not ready to execute ===\n  ✗ first at main.star:2\n  ✗ third at main.star:4\n",
	} {
		if !strings.Contains(o.stdout, want) {
			t.Errorf("the dry run lacks %q:\n%s", want, o.stdout)
		}
	}
	if n := strings.Count(o.stdout, "✗ AI command binary not found: no-such-agent-cli\n"); n != 4 {
		t.Errorf("the missing agent is told %d times, want twice per loop not ready:\n%s", n, o.stdout)
	}
	if w.ran(1) {
		t.Error("an agent ran in a dry run")
	}
}

// TestScriptDryRunSafeCommands: in a dry run, run(…, safe = True) runs,
// so a fan-out over its output shows a loop per line; run() without it
// gives a placeholder, the loops that depend on it do not show, and the
// dry run's end says that the count depends on placeholders.
func TestScriptDryRunSafeCommands(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	w.write("tasks.txt", "alpha\nbeta\n")
	w.write("main.star", `
def fan_out(listed):
    for name in listed.output.split():
        iterate(compose(name, act = [fragment(content = "Do " + name + ".")]), max_iterations = 1)
    print("listed", listed.dry_run, listed.exit_code, repr(listed.output))

fan_out(run("cat tasks.txt", safe = True))
fan_out(run(["cat", "tasks.txt"]))
`)
	o := w.runScript("main.star", "--ai-cmd", w.aiCmd(), "--dry-run")
	o.expect(t, 0, "[dry-run] running, as it is safe: cat tasks.txt\n", "listed False 0 \"alpha\\nbeta\\n\"\n",
		"[dry-run] not running: cat tasks.txt\n", "listed True 0 \"\"\n")
	want := "=== Dry-run of the script: 2 loops reported ===\n" +
		"Placeholders: what the script did with these results — how many loops, which ones — may differ in a real run:\n" +
		"  run(\"cat tasks.txt\") at main.star:8: not run; dry_run True, exit_code 0, output \"\"\n" +
		"A read-only command marked run(…, safe = True) runs in a dry run too.\n"
	if !strings.HasSuffix(o.stdout, want) || strings.Count(o.stdout, "=== Dry-Run: ") != 2 || !strings.Contains(o.stdout, "=== Dry-Run: beta ===\n") {
		t.Errorf("the dry run does not end with\n%s\nstdout:\n%s", want, o.stdout)
	}
	if w.ran(1) {
		t.Error("an agent ran in a dry run")
	}
}

// TestScriptDryRunSafeCommandNotInAWorktree: a safe command given a
// worktree is not run in a dry run, which makes no worktree: it is a
// placeholder, said so.
func TestScriptDryRunSafeCommandNotInAWorktree(t *testing.T) {
	t.Parallel()
	w := newRepoWorkspace(t)
	must(t, os.WriteFile(filepath.Join(w.repo, "main.star"), []byte("r = run('pwd', dir = worktree('a'), safe = True)\nprint('dry', r.dry_run)\n"), 0o644))
	o := w.workspace.roodaIn(w.repo, "script", "run", "main.star", "--dry-run")
	o.expect(t, 0, "[dry-run] not running in a worktree, which a dry run does not make: pwd\n", "dry True\n")
	w.noWorktreesLeft()
}
