package cli

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// endingsWorkspace is a workspace whose fake agents follow a script per
// loop: the agent line runs DIR/<procedure>.json, so that each loop of
// parallel() (its procedure named after it) does what its test says.
func endingsWorkspace(t *testing.T, scripts map[string][]step) *workspace {
	t.Helper()
	w := newWorkspace(t, step{})
	for name, steps := range scripts {
		data, _ := json.Marshal(map[string]any{"record": w.dir, "steps": steps})
		w.write(name+".json", string(data))
	}
	return w
}

// agentLine runs the fake agent with the script of the loop's procedure.
func (w *workspace) agentPerProcedure() string {
	return "sh -c 'exec " + filepath.Join(binaries(w.t), "fakeagent") + " " + w.dir + "/$ROODA_PROCEDURE.json'"
}

// parallelEndingScript runs two loops at once, ok (which succeeds) and
// bad (whose one iteration fails), the second to end waiting until the
// first has ended: which ends last is the test's choice, not the clock's.
const parallelEndingScript = `
def loop(name):
    r = iterate(compose(name, act = [fragment(content = "Work.")]), max_iterations = 1, failure_threshold = 1)
    run("touch %s-ended" % name)
    return r.status

print("statuses", parallel([(loop, "ok"), (loop, "bad")]))
`

// TestParallelExitIsTheWorst: after parallel(), a script that runs to its
// end exits as the worst of its loops ended, whichever ended last: one
// loop succeeds and one aborts, in both orders, and the run is aborted,
// exit 1, in its log's last word and its record.
func TestParallelExitIsTheWorst(t *testing.T) {
	for _, last := range []string{"ok", "bad"} {
		t.Run(last+"_ends_last", func(t *testing.T) {
			t.Parallel()
			first := map[string]string{"ok": "bad", "bad": "ok"}[last]
			outputs := map[string]string{"ok": successSignal, "bad": failureSignal}
			wait := step{"output": outputs[last], "shell": fmt.Sprintf("while [ ! -f %s-ended ]; do sleep 0.02; done", first)}
			w := endingsWorkspace(t, map[string][]step{first: {{"output": outputs[first]}}, last: {wait}})
			w.write("main.star", parallelEndingScript)
			o := w.runScript("main.star", "--ai-cmd", w.agentPerProcedure())
			o.expect(t, 1, "statuses [\"success\", \"aborted\"]")
			// The order was the test's: the last loop's summary comes last.
			summaries := map[string]string{"ok": "Success: the agent signaled SUCCESS", "bad": "Aborting after 1 consecutive failure"}
			if strings.Index(o.stderr, summaries[first]) > strings.Index(o.stderr, summaries[last]) {
				t.Fatalf("%s ended before %s:\n%s", last, first, o.stderr)
			}
			if run := onlyRun(t, w); run.Status != "aborted" || run.ExitCode == nil || *run.ExitCode != 1 {
				t.Errorf("run.json: status %q, exit code %v", run.Status, run.ExitCode)
			}
		})
	}
}

// TestLastStatementDecidesTheExit: the exit rule is the program's order:
// an iterate() after a parallel() whose loop aborted decides the exit,
// and a loop in a function parallel() runs counts only through
// parallel().
func TestLastStatementDecidesTheExit(t *testing.T) {
	t.Parallel()
	w := endingsWorkspace(t, map[string][]step{"ok": {{"output": successSignal}}, "bad": {{"output": failureSignal}}})
	w.write("main.star", `
def loop(name):
    return iterate(compose(name, act = [fragment(content = "Work.")]), max_iterations = 1, failure_threshold = 1).status

print(parallel([(loop, "ok"), (loop, "bad")]))
print(loop("ok"))
`)
	o := w.runScript("main.star", "--ai-cmd", w.agentPerProcedure())
	o.expect(t, 0, "[\"success\", \"aborted\"]\n", "success\n")
	if run := onlyRun(t, w); run.Status != "success" {
		t.Errorf("run.json: status %q", run.Status)
	}
}

// TestExitBuiltin: exit(code, reason) ends the script there, whatever its
// loops did: the code is the run's, the reason in the log, run.json and
// runs show, and the statement after it never runs.
func TestExitBuiltin(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, step{"output": successSignal})
	w.write("main.star", `
r = iterate(compose("p", act = [fragment(content = "Work.")]), max_iterations = 1)
if r.status == "success":
    exit(3, "the review is still to do")
print("after exit")
`)
	o := w.runScript("main.star", "--ai-cmd", w.aiCmd())
	o.expect(t, 3, "ERROR: The script exited with code 3: the review is still to do\n")
	if strings.Contains(o.stderr, "after exit") || strings.Contains(o.stderr, "Traceback") {
		t.Errorf("the script went on, or a traceback:\n%s", o.stderr)
	}
	run := onlyRun(t, w)
	if run.Status != "exited" || run.ExitCode == nil || *run.ExitCode != 3 || run.Reason != "the review is still to do" {
		t.Errorf("run.json: status %q, exit code %v, reason %q", run.Status, run.ExitCode, run.Reason)
	}
	show := w.rooda("runs", "show", "last")
	if !strings.Contains(show.stdout, "Status: exited\nExit code: 3\nReason: the review is still to do\n") {
		t.Errorf("runs show:\n%s", show.stdout)
	}

	w.write("zero.star", `
iterate(compose("p", act = [fragment(content = "Work.")]), max_iterations = 1, on_iteration = lambda it: "abort")
exit(0, "an abort is fine here")
`)
	w.runScript("zero.star", "--ai-cmd", w.aiCmd()).expect(t, 0, "The script exited with code 0: an abort is fine here\n")

	w.write("bad.star", "exit(130)\n")
	w.runScript("bad.star", "--ai-cmd", w.aiCmd()).expect(t, 1, "exit: code must be 0 to 125, got 130")
}

// TestScriptBudgetIsTheScripts: a budget given to iterate() ends that loop
// with status budget and the script goes on to report; the same budget
// given on the command line ends the run, exit 2, with its message and
// the line it stopped at, without a traceback.
func TestScriptBudgetIsTheScripts(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, step{"output": transcript(t, "claude-stream-json", "prompt_echo_in_tool_result")})
	w.write("rooda-config.yml", "ai_cmd_aliases:\n  fake: {cmd: \""+w.aiCmd()+"\", output: claude-stream-json}\nloop:\n  ai_cmd_alias: fake\n")
	w.write("main.star", `
r = iterate(compose("p", act = [fragment(content = "Work.")]), max_iterations = 10, max_cost_usd = 0.0002)
print("status", r.status, "after", r.iterations)
`)
	o := w.runScript("main.star")
	o.expect(t, 2, "Budget reached: the run's agents spent $0.0002, reaching max_cost_usd $0.0002", "status budget after 2\n")
	if strings.Contains(o.stderr, "Traceback") || strings.Contains(o.stderr, "Error:") {
		t.Errorf("the script's own budget ended it:\n%s", o.stderr)
	}

	w.write("main.star", `
r = iterate(compose("p", act = [fragment(content = "Work.")]), max_iterations = 10)
print("status", r.status)
`)
	o = w.runScript("main.star", "--max-cost-usd", "0.0002")
	o.expect(t, 2, "\nError: main.star:2:12: the run's agents spent $0.0002, reaching max_cost_usd $0.0002\n")
	if strings.Contains(o.stderr, "Traceback") || strings.Contains(o.stderr, "status") {
		t.Errorf("the run's budget did not end the run cleanly:\n%s", o.stderr)
	}
}

// TestRunDurationBudgetSaysSo: --max-duration is a budget, not a signal:
// the log says the run reached it (not "Received"), the loop ends with
// status budget, and the script's end names the line, no traceback.
func TestRunDurationBudgetSaysSo(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, step{"delay": "30s"})
	w.write("main.star", "iterate(compose('p', act = [fragment(content = 'x')]))\n")
	o := w.runScript("main.star", "--ai-cmd", w.aiCmd(), "--max-duration", "1s")
	o.expect(t, 2,
		"WARN: The run reached its budget of 1s of run time (--max-duration): stopping the agent and its processes (SIGTERM, SIGKILL after 5s)\n",
		"WARN: Budget reached: the run reached its budget of 1s of run time (--max-duration) (0 iterations completed",
		"\nError: main.star:1:8: the run reached its budget of 1s of run time (--max-duration)\n")
	for _, bad := range []string{"Received", "Traceback", "Interrupted"} {
		if strings.Contains(o.stderr, bad) {
			t.Errorf("%q in:\n%s", bad, o.stderr)
		}
	}
	if run := onlyRun(t, w); run.Status != "budget" || len(run.Loops) != 1 || run.Loops[0].Status != "budget" {
		t.Errorf("run.json: %q, loops %+v", run.Status, run.Loops)
	}
}

// TestStopReasonInTheRecord: a ("stop", reason) verdict is the iteration's
// reason in meta.json and runs show, and the loop's in run.json.
func TestStopReasonInTheRecord(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, step{"output": "working\n"})
	w.write("main.star", `
r = iterate(compose("p", act = [fragment(content = "Work.")]), max_iterations = 5,
            on_iteration = lambda it: ("stop", "spent enough") if it.number == 2 else None)
print(r.status, r.reason)
`)
	o := w.runScript("main.star", "--ai-cmd", w.aiCmd())
	o.expect(t, 0, "stopped spent enough\n")
	if m := w.meta(2); m.Outcome != "stop" || m.Reason != "spent enough" {
		t.Errorf("meta.json: outcome %q, reason %q", m.Outcome, m.Reason)
	}
	if run := onlyRun(t, w); run.Status != "stopped" || run.Loops[0].Reason != "spent enough" {
		t.Errorf("run.json: %q, loops %+v", run.Status, run.Loops)
	}
	show := w.rooda("runs", "show", "last")
	if !strings.Contains(show.stdout, "Loop 1: p (stopped: spent enough)") {
		t.Errorf("runs show:\n%s", show.stdout)
	}
	show = w.rooda("runs", "show", "last", "--iteration", "2")
	if !strings.Contains(show.stdout, "Outcome: stop\nReason: spent enough\n") {
		t.Errorf("runs show --iteration 2:\n%s", show.stdout)
	}
}
