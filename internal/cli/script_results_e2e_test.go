package cli

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// exitCodeScript computes its own exit code from how its loop ended, as
// scripts/examples/budget.star does.
const exitCodeScript = `
r = iterate(compose("p", act = [fragment(content = "Work.")]), max_iterations = 1)
print("ok", r.ok, r.status)
if not r.ok:
    exit(3, "not done: " + r.status)
`

// TestScriptExitCodeTakesADryRunForDone: r.ok is True for a loop that
// succeeded and for one a dry run reported, False for any other ending,
// so a script's own exit code logic written with it lets its dry run
// exit 0 and still exits 3 when the real loop does not succeed.
func TestScriptExitCodeTakesADryRunForDone(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, step{"output": "still working\n"})
	w.write("main.star", exitCodeScript)
	w.runScript("main.star", "--ai-cmd", w.aiCmd(), "--dry-run").expect(t, 0, "ok True dry-run\n")
	if w.ran(1) {
		t.Error("an agent ran in a dry run")
	}
	w.runScript("main.star", "--ai-cmd", w.aiCmd()).expect(t, 3, "ok False max-iters\n", "The script exited with code 3: not done: max-iters")
	w = newWorkspace(t, step{"output": successSignal + "\n"})
	w.write("main.star", exitCodeScript)
	w.runScript("main.star", "--ai-cmd", w.aiCmd()).expect(t, 0, "ok True success\n")
}

// TestScriptExitInADryRunKeepsItsEnd: a script that calls exit() in a
// dry run still gets the dry run's end (the loops it reported, the
// placeholders it was given, and where it exited), then exits with its
// code; a loop not ready still fails the dry run, whatever exit() said.
// The hint that r.ok takes "dry-run" for success is given when the
// reason names that status, not for an exit that has nothing to do with
// a loop's.
func TestScriptExitInADryRunKeepsItsEnd(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	w.write("main.star", `
r = iterate(compose("p", act = [fragment(content = "Work.")]), max_iterations = 1)
if run("git status --porcelain").output:
    print("not clean")
if r.status != "success":
    exit(3, "not done: " + r.status)
`)
	o := w.runScript("main.star", "--ai-cmd", w.aiCmd(), "--dry-run")
	o.expect(t, 3, "ERROR: The script exited with code 3: not done: dry-run")
	want := "=== Dry-run of the script: 1 loop reported ===\n" +
		"Placeholders: what the script did with these results — how many loops, which ones — may differ in a real run:\n" +
		"  run(\"git status --porcelain\") at main.star:3: not run; dry_run True, exit_code 0, output \"\"\n" +
		"A read-only command marked run(…, safe = True) runs in a dry run too.\n" +
		"The script ended at main.star:6: exit(3, \"not done: dry-run\"). A loop of a dry run has status \"dry-run\": r.ok is True for it, as for \"success\".\n"
	if !strings.HasSuffix(o.stdout, want) {
		t.Errorf("the dry run does not end with\n%s\nstdout:\n%s", want, o.stdout)
	}

	w.write("main.star", `
iterate(compose("p", act = [fragment(content = "Work.")]), agent = "no-such-agent-cli")
exit(0)
`)
	o = w.runScript("main.star", "--dry-run")
	o.expect(t, 1, "Error: Dry-run validation failed: 1 of 1 loop not ready to execute")
	if want := "=== Dry-run of the script: 1 loop reported, 1 not ready to execute ===\n  ✗ p at main.star:2\nThe script ended at main.star:3: exit(0).\n"; !strings.HasSuffix(o.stdout, want) {
		t.Errorf("the dry run does not end with\n%s\nstdout:\n%s", want, o.stdout)
	}

	w.write("main.star", `
iterate(compose("p", act = [fragment(content = "Work.")]), max_iterations = 1)
exit(2, "TASKS.md is missing")
`)
	o = w.runScript("main.star", "--ai-cmd", w.aiCmd(), "--dry-run")
	o.expect(t, 2, "ERROR: The script exited with code 2: TASKS.md is missing")
	if want := "=== Dry-run of the script: 1 loop reported ===\nThe script ended at main.star:3: exit(2, \"TASKS.md is missing\").\n"; !strings.HasSuffix(o.stdout, want) {
		t.Errorf("the dry run does not end with\n%s\nstdout:\n%s", want, o.stdout)
	}
}

// TestVerdictKeepsTheAgentsCauseAndItsReason: after on_iteration stops
// the loop, r.last.cause still says why the agent failed, and
// r.last.reason is the verdict's reason; a veto that did not end the
// loop (a failure verdict with a reason) is read as the next iteration's
// previous.reason, and as r.last.reason when it was the last iteration
// (here the loop aborts at the failure threshold, which r.reason does
// not explain).
// In on_iteration itself, no verdict has been given yet: it.reason is
// None.
func TestVerdictKeepsTheAgentsCauseAndItsReason(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, step{"output": "broke\n", "exit": 1})
	w.write("main.star", `
r = iterate(compose("p", act = [fragment(content = "Work.")]), max_iterations = 3,
            on_iteration = lambda it: ("stop", "enough for today"))
print("stopped", r.status, r.reason, r.last.outcome, r.last.cause, r.last.reason)
`)
	w.runScript("main.star", "--ai-cmd", w.aiCmd()).expect(t, 0, "stopped stopped enough for today stop agent_failed enough for today\n")

	w = newWorkspace(t, step{"output": successSignal + "\n"})
	w.write("main.star", `
def review(it):
    print("in on_iteration", it.number, it.reason)
    return ("failure", "the reviewer vetoed: no tests")

def handover(n, previous):
    if previous and previous.reason:
        return "Last review: " + previous.reason
    return None

r = iterate(compose("p", act = [fragment(content = "Work.")]), max_iterations = 2,
            on_iteration = review, context = handover)
print("vetoed", r.status, r.reason, r.last.outcome, r.last.cause, r.last.reason)
`)
	w.runScript("main.star", "--ai-cmd", w.aiCmd()).expect(t, 1, "in on_iteration 1 None\n", "in on_iteration 2 None\n",
		"vetoed aborted None failure procedure the reviewer vetoed: no tests\n")
	if p := w.prompt(2); !strings.Contains(p, "Last review: the reviewer vetoed: no tests") {
		t.Errorf("the veto did not reach the next prompt:\n%s", p)
	}
}

// TestScriptLoginFailureEndsTheLoopNotTheScript: in a script, an agent
// that cannot log in ends its loop, not the run, and the log says so:
// the loop of a1 alone is aborted with cause auth and the script goes on;
// a loop whose agent function reads previous.cause goes on past a1 with
// a2 (a1 is out for the rest of that loop only: the second loop tries
// it again), and the script exits as its last loop ended. The same
// script run as a procedure, rooda run NAME, goes on as well: only a
// YAML or built-in procedure's run ends with its loop.
func TestScriptLoginFailureEndsTheLoopNotTheScript(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, step{"output": successSignal + "\n"})
	login, err := json.Marshal(map[string]any{"record": w.dir, "steps": []step{{"output": transcript(t, "claude-stream-json", "not_logged_in"), "exit": 1}}})
	must(t, err)
	w.write("login.json", string(login))
	fake := filepath.Join(binaries(t), "fakeagent")
	w.write("rooda-config.yml", "ai_cmd_aliases:\n"+
		"  a1: {cmd: \""+fake+" "+filepath.Join(w.dir, "login.json")+"\", output: claude-stream-json}\n"+
		"  a2: {cmd: \""+w.aiCmd()+"\"}\n"+
		"procedures:\n  nightly: {script: main.star}\n")
	w.write("main.star", `
p = compose("p", act = [fragment(content = "Work.")])
r = iterate(p, agent = "a1", max_iterations = 3)
print("alone", r.status, r.iterations, r.last.cause)

def pick(n, previous):
    if previous and previous.cause == "auth":
        return "a2"
    return "a1"

r = iterate(p, agent = pick, max_iterations = 3)
print("function", r.status, r.iterations, r.last.agent)
`)
	w.runScript("main.star").expect(t, 0,
		"ERROR: Iteration 1/3: the agent cannot log in (Not logged in · Please run /login); no further iteration of this loop starts. Log claude in",
		"alone aborted 1 auth\n",
		"WARN: Iteration 1/3: a1 cannot log in (Not logged in · Please run /login): taken out of the rotation for the rest of the loop; the loop goes on with the agents the script's function chooses.",
		"function success 2 a2\n")
	w.rooda("run", "nightly").expect(t, 0, "alone aborted 1 auth\n", "function success 2 a2\n")
}
