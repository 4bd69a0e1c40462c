package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// verdictRow is one row of the verdict table of docs/running.md, run through the
// real binary: a script whose on_iteration gives the same verdict every
// iteration (None keeps the agent's outcome), with a minimum and a
// threshold.
type verdictRow struct {
	name string
	// table is the row's first five cells in the table of docs/running.md.
	table   string
	timeout string // iterate()'s timeout; "" gives none
	agent   step   // the fake agent, every iteration
	verdict string // what on_iteration returns, as Starlark
	min     int    // min_iterations; 0 gives none
	max     int    // max_iterations; 0 gives 3
	// agentOutcome is the outcome on_iteration sees in iteration 1: the
	// agent's, before the procedure's verdict and the minimum.
	agentOutcome string
	// What the run shows: the outcome of each iteration, in order, the
	// loop's status and exit code, and lines the log must have and lack.
	outcomes []string
	status   string
	code     int
	log      []string
	notLog   []string
}

// verdictRows are the verdict table of docs/running.md, row by row, with
// failure_threshold=2 and, unless the row says, max_iterations=3.
var verdictRows = []verdictRow{
	{name: "exit0_none", table: `none | 0 | None | any | continue`, agentOutcome: "continue", agent: step{"output": "work\n"}, verdict: "None",
		outcomes: []string{"continue", "continue", "continue"}, status: "max-iters", code: 2,
		log: []string{"(continue)\n"}},
	{name: "success_signal", table: `SUCCESS only | any | None | no | success`, agentOutcome: "success", agent: step{"output": successSignal, "exit": 1}, verdict: "None",
		outcomes: []string{"success"}, status: "success", code: 0,
		log: []string{"(success)\n", "Success: the agent signaled SUCCESS in iteration 1/3"}},
	{name: "success_signal_before_minimum", table: `SUCCESS only | any | None | yes | continue`, agentOutcome: "success", agent: step{"output": successSignal}, verdict: "None", min: 2,
		outcomes: []string{"continue", "success"}, status: "success", code: 0,
		log: []string{"Iteration 1/3: the agent signaled SUCCESS before the minimum of 2 iterations; going on", "(continue)"}},
	{name: "failure_signal", table: `FAILURE (with or without SUCCESS) | any | None | any | failure`, agentOutcome: "failure", agent: step{"output": successSignal + failureSignal}, verdict: "None",
		outcomes: []string{"failure", "failure"}, status: "aborted", code: 1,
		log: []string{"WARN: Iteration 1/3: the agent signaled FAILURE", "(failure, consecutive: 2/2)", "Aborting after 2 consecutive failures"}},
	{name: "nonzero_exit", table: `none | non-zero | None | any | failure`, agentOutcome: "failure", agent: step{"exit": 3}, verdict: "None",
		outcomes: []string{"failure", "failure"}, status: "aborted", code: 1,
		log: []string{"WARN: Iteration 1/3: the agent failed (exit code 3)"}},
	{name: "timed_out", table: "timed out, or could not start | any | None | any | failure", agentOutcome: "failure",
		agent: step{"output": successSignal, "delay": "30s"}, verdict: "None", timeout: "1", max: 1,
		outcomes: []string{"failure"}, status: "aborted", code: 1,
		log: []string{"WARN: Iteration 1/1: timed out after 1s", "(failure, consecutive: 1/1)", "Aborting after 1 consecutive failure ("}},
	// A loop allowed one iteration, which failed, failed every iteration
	// it had: aborted, though the threshold is 2.
	{name: "failure_in_a_one_iteration_loop", table: `FAILURE (with or without SUCCESS) | any | None | any | failure`, agentOutcome: "failure", agent: step{"output": failureSignal}, verdict: "None", max: 1,
		outcomes: []string{"failure"}, status: "aborted", code: 1,
		log: []string{"(failure, consecutive: 1/1)", "Aborting after 1 consecutive failure ("}, notLog: []string{"Reached max iterations"}},
	{name: "procedure_continue", table: "any | any | `\"continue\"` | any | continue", agentOutcome: "success", agent: step{"output": successSignal}, verdict: `"continue"`,
		outcomes: []string{"continue", "continue", "continue"}, status: "max-iters", code: 2,
		log:    []string{"Iteration 1/3: the procedure's on_iteration declared continue; the agent's outcome was success"},
		notLog: []string{"Success:"}},
	{name: "procedure_success", table: "any | any | `\"success\"` | no | success", agentOutcome: "failure", agent: step{"exit": 1}, verdict: `"success"`,
		outcomes: []string{"success"}, status: "success", code: 0,
		log:    []string{"Iteration 1/3: the procedure's on_iteration declared success; the agent's outcome was failure", "Success: the procedure ended the loop in iteration 1/3"},
		notLog: []string{"the agent failed"}},
	{name: "procedure_success_before_minimum", table: "any | any | `\"success\"` | yes | continue", agentOutcome: "continue", agent: step{}, verdict: `"success"`, min: 3,
		outcomes: []string{"continue", "continue", "success"}, status: "success", code: 0,
		log: []string{
			"Iteration 1/3: the procedure's on_iteration declared success before the minimum of 3 iterations; going on",
			"Iteration 2/3: the procedure's on_iteration declared success before the minimum of 3 iterations; going on",
			"Success: the procedure ended the loop in iteration 3/3"}},
	{name: "procedure_failure", table: "any | any | `\"failure\"` | any | failure", agentOutcome: "continue", agent: step{}, verdict: `"failure"`,
		outcomes: []string{"failure", "failure"}, status: "aborted", code: 1,
		log:    []string{"WARN: Iteration 1/3: the procedure's on_iteration declared failure; the agent's outcome was continue", "(failure, consecutive: 2/2)"},
		notLog: []string{"the agent failed"}},
	{name: "threshold_on_the_last_iteration", table: "any | any | `\"failure\"` | any | failure", agentOutcome: "continue", agent: step{}, verdict: `"failure"`, max: 2,
		outcomes: []string{"failure", "failure"}, status: "aborted", code: 1,
		log: []string{"(failure, consecutive: 2/2)", "Aborting after 2 consecutive failures"}, notLog: []string{"Reached max iterations"}},
	{name: "until_command_before_minimum", table: "any | any | `\"success\"` | yes | continue", agentOutcome: "continue", agent: step{}, verdict: `until_command("true")(it)`, min: 3,
		outcomes: []string{"continue", "continue", "success"}, status: "success", code: 0,
		log: []string{"Iteration 2/3: the procedure's on_iteration declared success before the minimum of 3 iterations; going on",
			"Success: the procedure ended the loop in iteration 3/3"}},
	{name: "procedure_abort", table: "any | any | `\"abort\"` | any | abort", agentOutcome: "success", agent: step{"output": successSignal}, verdict: `"abort"`,
		outcomes: []string{"abort"}, status: "aborted", code: 1,
		log: []string{"WARN: Iteration 1/3: the procedure's on_iteration declared abort; the agent's outcome was success", "Aborting: the procedure said abort"}},
	{name: "procedure_abort_with_a_reason", table: "any | any | `\"abort\"` | any | abort", agentOutcome: "continue", agent: step{}, verdict: `("abort", "over budget")`,
		outcomes: []string{"abort"}, status: "aborted", code: 1,
		log: []string{"WARN: Iteration 1/3: the procedure's on_iteration declared abort (over budget); the agent's outcome was continue", "Aborting: the procedure said abort (over budget) (1 iteration completed"}},
	{name: "procedure_stop", table: "any | any | `\"stop\"` | any | stop", agentOutcome: "failure", agent: step{"exit": 1}, verdict: `("stop", "spent enough") if it.number == 2 else None`, min: 3,
		outcomes: []string{"failure", "stop"}, status: "stopped", code: 0,
		log:    []string{"Iteration 2/3: the procedure's on_iteration declared stop (spent enough); the agent's outcome was failure", "Stopped: the procedure ended the loop in iteration 2/3 (spent enough)"},
		notLog: []string{"Aborting", "consecutive: 2/2"}},
}

// TestVerdictTable runs every row of the verdict table and checks each
// place that names an iteration's outcome: it.outcome as on_iteration
// and the loop result see it, the progress log, the JSON events,
// meta.json and runs show.
func TestVerdictTable(t *testing.T) {
	for _, row := range verdictRows {
		t.Run(row.name, func(t *testing.T) {
			t.Parallel()
			w := newWorkspace(t, row.agent)
			w.write("main.star", verdictScript(row))
			o := w.runScript("main.star", "--ai-cmd", w.aiCmd())
			o.expect(t, row.code, row.log...)
			for _, l := range row.notLog {
				if strings.Contains(o.logLines(), l) {
					t.Errorf("log has %q:\n%s", l, o.stderr)
				}
			}
			want := fmt.Sprintf("saw %s last %s status %s\n", row.agentOutcome, row.outcomes[len(row.outcomes)-1], row.status)
			if !strings.Contains(o.stderr, want) {
				t.Errorf("script printed no %q:\n%s", want, o.stderr)
			}
			if got := strings.Join(recordedOutcomes(w), ","); got != strings.Join(row.outcomes, ",") {
				t.Errorf("meta.json outcomes %s, want %s", got, strings.Join(row.outcomes, ","))
			}
			last := len(row.outcomes)
			show := w.rooda("runs", "show", "last", "--iteration", fmt.Sprint(last))
			if !strings.Contains(show.stdout, "Outcome: "+row.outcomes[last-1]+"\n") {
				t.Errorf("runs show --iteration %d:\n%s%s", last, show.stdout, show.stderr)
			}
		})
	}
}

// verdictScript is the row's script: it prints the outcome on_iteration
// saw in iteration 1 (the agent's), the last iteration's outcome as
// iterate() returns it, and the loop's status.
func verdictScript(row verdictRow) string {
	min, max, timeout := "None", 3, "None"
	if row.timeout != "" {
		timeout = row.timeout
	}
	if row.min > 0 {
		min = fmt.Sprint(row.min)
	}
	if row.max > 0 {
		max = row.max
	}
	return fmt.Sprintf(`
load("@rooda//termination.star", "until_command")

seen = []

def verdict(it):
    seen.append(it.outcome)
    return %s

r = iterate(compose("v", act = [fragment(content = "Work.")]), max_iterations = %d, failure_threshold = 2,
            min_iterations = %s, timeout = %s, on_iteration = verdict)
print("saw %%s last %%s status %%s" %% (seen[0], r.last.outcome, r.status))
`, row.verdict, max, min, timeout)
}

// recordedOutcomes reads the outcome of every iteration of the only run
// from its meta.json files, as written.
func recordedOutcomes(w *workspace) []string {
	w.t.Helper()
	metas, _ := filepath.Glob(filepath.Join(w.dir, ".rooda", "runs", "*", "iterations", "*", "meta.json"))
	out := make([]string, len(metas))
	for i := range metas {
		out[i] = w.meta(i + 1).Outcome
	}
	return out
}

// TestOutcomesInJSONEvents: the JSON events name outcomes in the same
// words: an exit 0 without a signal is continue, SUCCESS is success.
func TestOutcomesInJSONEvents(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, step{"output": "hi\n"}, step{"output": successSignal})
	o := w.run("build", "--log-format", "json", "-n", "3")
	var outcomes []string
	for _, line := range strings.Split(strings.TrimSpace(o.stderr), "\n") {
		var e map[string]any
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("not JSON: %q", line)
		}
		if e["event"] == "iteration_finished" {
			outcomes = append(outcomes, fmt.Sprint(e["outcome"]))
		}
	}
	if got := strings.Join(outcomes, " "); o.code != 0 || got != "continue success" {
		t.Errorf("exit %d, outcomes %q, want \"continue success\"\n%s", o.code, got, o.stderr)
	}
}

// TestOldRecordsInTodaysWords: a meta.json written before the one
// vocabulary ("success" for continue, "SUCCESS" for success, no
// outcome_names) is shown by runs show, as text and JSON, in today's
// words; a record written today keeps its words.
func TestOldRecordsInTodaysWords(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, step{"output": "hi\n"}, step{"output": successSignal})
	w.run("build", "-n", "3").expect(t, 0)
	metas, _ := filepath.Glob(filepath.Join(w.dir, ".rooda", "runs", "*", "iterations", "*", "meta.json"))
	if len(metas) != 2 {
		t.Fatalf("meta.json files: %v", metas)
	}
	for i, old := range []string{"success", "SUCCESS"} {
		w.write(metas[i][len(w.dir)+1:], fmt.Sprintf(`{"record": %d, "loop": 1, "iteration": %d, "outcome": %q, "exit_code": 0}`, i+1, i+1, old))
	}
	for n, want := range []string{"continue", "success"} {
		text := w.rooda("runs", "show", "last", "--iteration", fmt.Sprint(n+1))
		if !strings.Contains(text.stdout, "Outcome: "+want+"\n") {
			t.Errorf("runs show --iteration %d:\n%s%s", n+1, text.stdout, text.stderr)
		}
		asJSON := w.rooda("runs", "show", "last", "--iteration", fmt.Sprint(n+1), "--json")
		var m struct{ Outcome string }
		if err := json.Unmarshal([]byte(asJSON.stdout), &m); err != nil || m.Outcome != want {
			t.Errorf("runs show --iteration %d --json: %v\n%s", n+1, err, asJSON.stdout)
		}
	}
}

// TestVerdictTableIsTheDocs: the verdict table of docs/running.md has exactly
// the rows TestVerdictTable runs, so the table says what rooda does.
func TestVerdictTableIsTheDocs(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "docs", "running.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, table, found := strings.Cut(string(readme), "<!-- verdict table:")
	if !found {
		t.Fatal("docs/running.md has no verdict table")
	}
	table, _, _ = strings.Cut(table, "\n\n")
	documented := map[string]bool{}
	for _, line := range strings.Split(table, "\n")[3:] { // the comment, the header and its rule
		cells := strings.Split(strings.Trim(line, "| "), " | ")
		documented[strings.Join(cells[:5], " | ")] = true
	}
	tested := map[string]bool{}
	for _, row := range verdictRows {
		tested[row.table] = true
		if !documented[row.table] {
			t.Errorf("row %s is not in the verdict table of docs/running.md: %s", row.name, row.table)
		}
	}
	for row := range documented {
		if !tested[row] {
			t.Errorf("the verdict table of docs/running.md has a row no test runs: %s", row)
		}
	}
}
