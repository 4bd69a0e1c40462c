package cli

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestListSummaryFromCommentHeader: rooda list gives a script procedure
// that opens with a comment header (the style of scripts/examples, whose
// lint leaves module docstrings off) the header's first sentence as its
// summary, across the lines it wraps over, past a #! line; a docstring
// still comes first, and a script with neither has none.
func TestListSummaryFromCommentHeader(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	w.write("rooda-config.yml", "procedures:\n"+
		"  pair: {script: "+example("builder_reviewer.star")+"}\n"+
		"  wrapped: {script: wrapped.star}\n"+
		"  both: {script: both.star}\n"+
		"  bare: {script: bare.star}\n")
	w.write("wrapped.star", "#!/usr/bin/env rooda\n\n# Nightly: the build, until\n# the tests pass. Then a review.\n#\n# Usage: rooda nightly\n\nprint(1)\n")
	w.write("both.star", "# Not this.\n\"\"\"The docstring's line.\n\nMore.\"\"\"\nprint(1)\n")
	w.write("bare.star", "print(1)  # no summary here\n# nor here\n")
	o := w.rooda("list")
	for _, want := range []string{
		`(?m)^pair +Builder and reviewer in one loop, each with a prompt of its own: the builder does the next piece of the work, the reviewer reads it\.$`,
		`(?m)^wrapped +Nightly: the build, until the tests pass\.$`,
		`(?m)^both +The docstring's line\.$`,
		`(?m)^bare +\(no summary\)$`,
	} {
		if !regexp.MustCompile(want).MatchString(o.stdout) {
			t.Errorf("rooda list does not match %s (exit %d):\n%s%s", want, o.code, o.stdout, o.stderr)
		}
	}
	stdoutHas(t, w.rooda("list", "--json"), `"summary": "Nightly: the build, until the tests pass."`)
}

// TestLoopResultTotals: what iterate() returns says what the loop spent,
// r.cost and r.usage, the sums of its iterations' it.cost and it.usage as
// the CLI reported them, so that a script's budget needs no sum of its
// own; for an agent read as text, where nothing is known, both are None,
// and r.cost of a rotation of the two is None too, not the JSON agent's
// part alone.
func TestLoopResultTotals(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t,
		step{"output": claudeTurn("Did a part.", 0.25, 100, 20)},
		step{"output": claudeTurn("Did more.", 0.5, 200, 30)},
		step{"output": claudeTurn(successSignal, 0.125, 50, 5)})
	data, _ := json.Marshal(map[string]any{"steps": []step{{"output": successSignal}}})
	w.write("text.json", string(data))
	data, _ = json.Marshal(map[string]any{"steps": []step{{"output": "Did a part."}}})
	w.write("working.json", string(data))
	textAgent := filepath.Join(binaries(t), "fakeagent") + " " + filepath.Join(w.dir, "text.json")
	workingAgent := filepath.Join(binaries(t), "fakeagent") + " " + filepath.Join(w.dir, "working.json")
	w.write("rooda-config.yml", "ai_cmd_aliases:\n  fake: {cmd: \""+w.aiCmd()+"\", output: claude-stream-json}\n")
	w.write("main.star", `r = iterate(compose("work", act = [fragment(content = "Work.")]), agent = "fake", max_iterations = 5)
print("json:", r.status, r.iterations, r.cost, r.usage)
t = iterate(compose("text", act = [fragment(content = "Work.")]), agent = "`+textAgent+`", max_iterations = 1)
print("text:", t.status, t.cost, t.usage)
m = iterate(compose("mixed", act = [fragment(content = "Work.")]), agent = ["fake", "`+workingAgent+`"], max_iterations = 3)
print("mixed:", m.status, m.iterations, m.last.cost, m.cost, m.usage.total)
`)
	w.runScript("main.star").expect(t, 0,
		"json: success 3 0.875 usage(cache_read = 0, cache_write = 0, input = 350, output = 55, total = 405)\n",
		"text: success None None\n",
		"mixed: success 3 0.125 None 175\n")
}

// TestParallelNamesLoopsByTheirNames: loops that run at once in
// parallel() are named on each line of the log by the loop's name, not
// by their function's: a worktree the function makes itself names its
// loop (the docs' [task-a]), a loop without one is named by its
// procedure, each loop of a function that runs two by its own; two
// functions whose loops share a name are told apart by the function's
// number.
func TestParallelNamesLoopsByTheirNames(t *testing.T) {
	t.Parallel()
	w := newRepoWorkspace(t)
	w.write("script.json", `{"steps": [{"output": "`+successSignal+`"}]}`)
	w.write("main.star", `def work(name, wt = None):
    return iterate(compose(name, act = [fragment(content = "Work.")]), worktree = wt, max_iterations = 1).status

def run_task(name):
    return work(name + "-work", worktree(name))

def plan_then_build():
    return [work("plan"), work("build")]

print(parallel([(run_task, "task-a"), (run_task, "task-b"), (work, "p"), (work, "p"), plan_then_build]))
`)
	cmd := exec.Command(binary(t), "script", "run", filepath.Join(w.dir, "main.star"), "--ai-cmd", w.aiCmd())
	cmd.Dir, cmd.Env = w.repo, w.env
	o := w.wait(w.start(cmd))
	o.expect(t, 0, "[task-a] Iteration 1/1 starting", "[task-b] Iteration 1/1 starting",
		"[p] Iteration 1/1 starting", "[plan] Iteration 1/1 starting", "[build] Iteration 1/1 starting",
		`["success", "success", "success", "success", ["success", "success"]]`)
	// The second loop named p is named after its function, the 3rd or
	// the 4th, whichever started its loop last.
	if third, fourth := strings.Contains(o.stderr, "[p#3] Iteration 1/1 starting"), strings.Contains(o.stderr, "[p#4] Iteration 1/1 starting"); third == fourth {
		t.Errorf("the two loops named p are not told apart by one function's number ([p#3]: %v, [p#4]: %v):\n%s", third, fourth, o.stderr)
	}
	if strings.Contains(o.stderr, ":run_task]") || strings.Contains(o.stderr, ":work]") || strings.Contains(o.stderr, "[task-a-work]") {
		t.Errorf("a loop is named by its function or its procedure beside its worktree:\n%s", o.stderr)
	}
}

// TestCheckWarnsOfAMainNeverCalled: a script that defines main() and
// calls nothing at its top level runs nothing and exits 0; script check
// warns of it, where main is, without failing, and script lint reports
// it. A main() called at the top level, under if __main__:, given as a
// callback, or loaded by another script checked with it, is not warned
// of, nor a script whose top level calls something else, nor a test file
// (nor any script under scripts/).
func TestCheckWarnsOfAMainNeverCalled(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	w.write("idle.star", "# Prints hello.\n\nGREETING = \"hello\"\n\ndef main():\n    print(GREETING)\n")
	o := w.rooda("script", "check", "idle.star")
	want := "Warning: idle.star:5:5: main() is defined but never called, and nothing else runs at the top level: running the script does nothing. Call it at the end: main(), or if __main__: main() to let a test load the script without running it\n"
	if o.code != 0 || o.stderr != want || o.stdout != "idle.star: ok\n" {
		t.Errorf("check: exit %d, stdout %q, stderr:\n%s", o.code, o.stdout, o.stderr)
	}
	stdoutHas(t, w.rooda("script", "lint", "idle.star"), "idle.star:5:5: check-warning: main() is defined but never called")

	must(t, os.Mkdir(filepath.Join(w.dir, "fine"), 0o755))
	for name, src := range map[string]string{
		"called.star":    "def main():\n    print(1)\n\nmain()\n",
		"guarded.star":   "def main():\n    print(1)\n\nif __main__:\n    main()\n",
		"callback.star":  "def main():\n    print(1)\n\nparallel([main])\n",
		"other.star":     "def main():\n    print(1)\n\nprint(2)\n",
		"library.star":   "def main():\n    print(1)\n",
		"loader.star":    "load(\"library.star\", run_it = \"main\")\n\nrun_it()\n",
		"idle_test.star": "def main():\n    print(1)\n\ndef test_nothing():\n    assert.eq(1, 1)\n",
	} {
		w.write(filepath.Join("fine", name), src)
	}
	scripts, _ := filepath.Abs(filepath.Join("..", "..", "scripts"))
	for _, dir := range []string{"fine", scripts} {
		if o := w.rooda("script", "check", dir); o.code != 0 || strings.Contains(o.stderr, "main()") {
			t.Errorf("check %s: exit %d, stderr:\n%s", dir, o.code, o.stderr)
		}
	}
}
