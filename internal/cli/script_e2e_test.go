package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// runScript runs "rooda script run FILE args…" in the workspace.
func (w *workspace) runScript(file string, args ...string) outcome {
	w.t.Helper()
	cmd := exec.Command(binary(w.t), append([]string{"script", "run", file}, args...)...)
	cmd.Dir, cmd.Env = w.dir, w.env
	return w.wait(w.start(cmd))
}

// example is the path of one of scripts/examples.
func example(name string) string {
	wd, _ := os.Getwd()
	return filepath.Join(wd, "..", "..", "scripts", "examples", name)
}

// TestScriptIgnoringEarlySuccess: an on_iteration that ignores SUCCESS
// before iteration 3 runs exactly 3 iterations and exits 0; the command
// line's --max-iterations 1 caps it at 1, exit 2.
func TestScriptIgnoringEarlySuccess(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, step{"output": successSignal})
	w.write("main.star", `
def not_before_3(it):
    if it.signal == "SUCCESS" and it.number < 3:
        return "continue"
    return None

p = compose("three", act = [fragment(content = "Do one step.")])
r = iterate(p, max_iterations = 10, on_iteration = not_before_3)
print("status", r.status, "iterations", r.iterations, "last", r.last.number)
`)
	o := w.runScript("main.star", "--ai-cmd", w.aiCmd())
	o.expect(t, 0, "Starting procedure: three (max 10 iterations)", "Iteration 1/10: the procedure's on_iteration declared continue; the agent's outcome was success",
		"Success: the agent signaled SUCCESS in iteration 3/10", "status success iterations 3 last 3\n")
	if w.ran(4) {
		t.Error("a fourth iteration ran")
	}
	o = w.runScript("main.star", "--ai-cmd", w.aiCmd(), "--max-iterations", "1")
	o.expect(t, 2, "Starting procedure: three (max 1 iteration)", "status max-iters iterations 1 last 1\n")
}

// TestScriptInterrupted: SIGINT during iterate() stops the agent's group
// and the script: exit 130, nothing left running.
func TestScriptInterrupted(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, step{"child": "30s", "delay": "30s"})
	w.write("main.star", "iterate(compose('p', act = ['builtin:fragments/act/emit_signal.md']))\nprint('after iterate')\n")
	cmd := exec.Command(binary(t), "script", "run", "main.star", "--ai-cmd", w.aiCmd())
	cmd.Dir, cmd.Env = w.dir, w.env
	s := w.start(cmd)
	w.waitForPids(2)
	sent := time.Now()
	s.cmd.Process.Signal(syscall.SIGINT)
	o := w.wait(s)
	o.expect(t, 130, "Received SIGINT", "Interrupted by SIGINT", "Error in iterate: interrupted by SIGINT")
	if strings.Contains(o.stderr, "after iterate") {
		t.Error("the script went on after the interrupt")
	}
	if took := time.Since(sent); took >= 5*time.Second {
		t.Errorf("exit %s after the signal", took)
	}
}

// TestScriptRunawayLoop: a for loop that would run for hours stops at the
// step budget with a message that names it.
func TestScriptRunawayLoop(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, step{})
	w.write("main.star", "n = 0\nfor i in range(1000000000):\n    n += i\n")
	o := w.runScript("main.star", "--max-steps", "100000")
	want := "Traceback (most recent call last):\n  main.star:2:1: in <toplevel>\nError: the run reached its budget of 100000 Starlark steps (--max-steps)\n"
	if o.code != 2 || o.stderr != want {
		t.Errorf("exit %d, stderr:\n%s", o.code, o.stderr)
	}
}

// TestScriptCheck: check finds a missing fragment and a bad load, and
// runs nothing.
func TestScriptCheck(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, step{})
	w.write("main.star", "load('helpers.star', 'h')\nprint('ran')\nf = fragment('prompts/missing.md')\niterate(compose('p', act = [f]))\n")
	cmd := exec.Command(binary(t), "script", "check", "main.star")
	cmd.Dir, cmd.Env = w.dir, w.env
	o := w.wait(w.start(cmd))
	want := "Error: main.star:1:1: cannot load helpers.star: file not found: helpers.star\nError: main.star:3:14: fragment file not found: prompts/missing.md\n"
	if o.code != 1 || o.stderr != want || o.stdout != "" {
		t.Errorf("exit %d, stdout %q, stderr:\n%s", o.code, o.stdout, o.stderr)
	}
	w.write("helpers.star", "h = 1\n")
	must(t, os.MkdirAll(filepath.Join(w.dir, "prompts"), 0o755))
	w.write("prompts/missing.md", "Here now.\n")
	o = w.wait(w.start(exec.Command(binary(t), "script", "check", filepath.Join(w.dir, "main.star"))))
	if o.code != 0 || !strings.HasSuffix(o.stdout, "main.star: ok\n") {
		t.Errorf("exit %d, stdout %q, stderr:\n%s", o.code, o.stdout, o.stderr)
	}
}

// TestScriptBudgets: --max-total-iterations counts across every
// iterate(); --max-duration stops an agent that would run on. Both exit 2
// and name the budget.
func TestScriptBudgets(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, step{})
	w.write("main.star", "p = compose('p', act = [fragment(content = 'x')])\niterate(p, max_iterations = 3)\niterate(p, max_iterations = 3)\nprint('done')\n")
	o := w.runScript("main.star", "--ai-cmd", w.aiCmd(), "--max-total-iterations", "4")
	o.expect(t, 2, "Starting procedure: p (max 1 iteration)", "\nError: main.star:3:8: the run reached its budget of 4 iterations (--max-total-iterations)\n")
	pids := readText(t, filepath.Join(w.dir, "pids"))
	if n := len(strings.Fields(pids)); n != 4 || strings.Contains(o.stderr, "done") {
		t.Errorf("%d agents ran, or the script went on:\n%s", n, o.stderr)
	}

	w = newWorkspace(t, step{"child": "30s", "delay": "30s"})
	w.write("main.star", "iterate(compose('p', act = [fragment(content = 'x')]))\n")
	o = w.runScript("main.star", "--ai-cmd", w.aiCmd(), "--max-duration", "1s")
	o.expect(t, 2, "the run reached its budget of 1s of run time (--max-duration)")
	if o.took > 15*time.Second {
		t.Errorf("took %s", o.took)
	}
}

// TestScriptDryRun: each iterate() prints its dry-run report and returns
// "dry-run"; run() runs nothing; no agent starts.
func TestScriptDryRun(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, step{})
	w.write("main.star", "r = iterate(compose('p', act = [fragment(content = 'Act now.')]), max_iterations = 2)\nc = run('touch ran')\nprint(r.status, r.dry_run, c.dry_run, dry_run)\n")
	o := w.runScript("main.star", "--ai-cmd", w.aiCmd(), "--dry-run")
	o.expect(t, 0, "[dry-run] not running: touch ran\n", "dry-run True True True\n")
	for _, want := range []string{"=== Dry-Run: p ===\n", "  Max Iterations: 2 (script: main.star:1)\n", "Iteration: 1 of 2\n", "Act now.\n", "Dry-run complete. Ready to execute: rooda script run main.star --ai-cmd"} {
		if !strings.Contains(o.stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, o.stdout)
		}
	}
	if _, err := os.Stat(filepath.Join(w.dir, "ran")); err == nil {
		t.Error("run() ran in a dry run")
	}
	if w.ran(1) {
		t.Error("an agent started in a dry run")
	}
}

// TestExamples runs each documented example against the fake agent.
func TestExamples(t *testing.T) {
	t.Run("min_iterations", func(t *testing.T) {
		t.Parallel()
		w := newWorkspace(t, step{"output": successSignal})
		w.runScript(example("min_iterations.star"), "--ai-cmd", w.aiCmd()).expect(t, 0, "Success: the agent signaled SUCCESS in iteration 3/8")
		if w.ran(4) {
			t.Error("a fourth iteration ran")
		}
	})
	t.Run("test_gated_build", func(t *testing.T) {
		t.Parallel()
		// The "tests" pass once two prompts are recorded: the agent's own
		// SUCCESS in iteration 1 is not enough.
		w := newWorkspace(t, step{"output": successSignal}, step{"output": "no signal"})
		o := w.runScript(example("test_gated_build.star"), "--ai-cmd", w.aiCmd(), "--", "sh -c '[ -f prompt-2.txt ]'")
		o.expect(t, 0, "Iteration 1/10: the procedure's on_iteration declared continue; the agent's outcome was success", "Success: the procedure ended the loop in iteration 2/10", "build: success after 2 iterations")
	})
	t.Run("rotate_agents", func(t *testing.T) {
		t.Parallel()
		w := newWorkspace(t, step{})
		other := newWorkspace(t, step{})
		o := w.runScript(example("rotate_agents.star"), "--", w.aiCmd(), other.aiCmd())
		o.expect(t, 2, "Reached max iterations: 4")
		for n, ws := range map[int]*workspace{1: w, 2: other, 3: w, 4: other} {
			if !ws.ran(n) {
				t.Errorf("iteration %d ran on the wrong agent", n)
			}
		}
	})
	t.Run("context_from_command", func(t *testing.T) {
		t.Parallel()
		w := newWorkspace(t, step{})
		w.runScript(example("context_from_command.star"), "--ai-cmd", w.aiCmd(), "-n", "2", "--", "echo marker-123").expect(t, 2)
		p := w.prompt(2)
		if !strings.Contains(p, "CONTEXT\n═══════════════════════════════════════════════════════════════\nIteration 2. Output of echo marker-123:\nmarker-123\n") {
			t.Errorf("prompt 2:\n%s", p)
		}
	})
}

// TestScriptInterruptedInRun: SIGINT while run() waits for a command,
// inside on_iteration, stops the command's group and the script: exit 130.
func TestScriptInterruptedInRun(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, step{})
	w.write("main.star", `
def check(it):
    run("sh -c 'echo $$ >> pids; sleep 30 & echo $! >> pids; wait'", timeout = 60)
iterate(compose("p", act = [fragment(content = "x")]), on_iteration = check)
`)
	cmd := exec.Command(binary(t), "script", "run", "main.star", "--ai-cmd", w.aiCmd())
	cmd.Dir, cmd.Env = w.dir, w.env
	s := w.start(cmd)
	w.waitForPids(3) // the agent, then the command's shell and its sleep
	sent := time.Now()
	s.cmd.Process.Signal(syscall.SIGINT)
	o := w.wait(s)
	o.expect(t, 130, "Interrupted by SIGINT")
	// Without the interrupt reaching run(), the 30 s sleep would hold it.
	if took := time.Since(sent); took >= 5*time.Second {
		t.Errorf("exit %s after the signal", took)
	}
}

// TestCommandLineAgentReplacesRotation: --ai-cmd replaces every agent a
// script names, a rotation too.
func TestCommandLineAgentReplacesRotation(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, step{})
	o := w.runScript(example("rotate_agents.star"), "--ai-cmd", w.aiCmd(), "--", "no-such-agent-a", "no-such-agent-b")
	o.expect(t, 2, "Reached max iterations: 4")
	if !w.ran(4) {
		t.Error("the command line's agent did not run every iteration")
	}
}

// TestScriptTest: a failing test is reported with its file:line and the
// closing line counts it; exit 1. The standard library's and the
// examples' own tests pass.
func TestScriptTest(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, step{})
	w.write("pkg_test.star", `
def test_prompt_of_the_second_iteration():
    a = fake_agent(outputs = ["working", "<promise>SUCCESS</promise>"])
    r = iterate(compose("p", act = [fragment(content = "Do it.")]), agent = a)
    assert.eq(r.status, "success")
    assert.contains(a.prompts[1], "Procedure: p\nIteration: 2 of 5\n")

def test_fails():
    assert.eq([1, 2], [1, 2, 3])
`)
	cmd := exec.Command(binary(t), "script", "test")
	cmd.Dir, cmd.Env = w.dir, w.env
	o := w.wait(w.start(cmd))
	want := "ok   pkg_test.star:2 test_prompt_of_the_second_iteration\nFAIL pkg_test.star:8 test_fails\n" +
		"    Traceback (most recent call last):\n      pkg_test.star:9:14: in test_fails\n    Error in assert.eq: got [1, 2], want [1, 2, 3]\n1 passed, 1 failed\n"
	if o.code != 1 || o.stdout != want {
		t.Errorf("exit %d, stdout:\n%s\nwant:\n%s\nstderr:\n%s", o.code, o.stdout, want, o.stderr)
	}
	if w.ran(1) {
		t.Error("a fake agent started a process")
	}

	wd, _ := os.Getwd()
	cmd = exec.Command(binary(t), "script", "test", filepath.Join(wd, "..", "..", "scripts"))
	cmd.Dir, cmd.Env = w.dir, w.env
	if o := w.wait(w.start(cmd)); o.code != 0 || !strings.HasSuffix(o.stdout, " passed, 0 failed\n") {
		t.Errorf("scripts/: exit %d\n%s%s", o.code, o.stdout, o.stderr)
	}
}
