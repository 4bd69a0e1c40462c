package cli

import (
	"encoding/json"
	"html"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// recordedEnd is how run.json says a run ended, read from the file as a
// script would read it.
type recordedEnd struct {
	Status string
	Reason string
	Budget *struct{ Name, Limit, Reached string }
	Loops  []struct{ Status, Why string }
}

// expectReason checks that the record of w's only run says why it ended:
// run.json's reason (matching want, a regular expression), runs show's
// Reason line and the run's page.
func (w *workspace) expectReason(status, want string) recordedEnd {
	w.t.Helper()
	files, _ := filepath.Glob(filepath.Join(w.dir, ".rooda", "runs", "*", "run.json"))
	if len(files) != 1 {
		w.t.Fatalf("want one record, found %v", files)
	}
	var run recordedEnd
	if err := json.Unmarshal([]byte(readText(w.t, files[0])), &run); err != nil {
		w.t.Fatal(err)
	}
	if run.Status != status || !regexp.MustCompile("^"+want+"$").MatchString(run.Reason) {
		w.t.Errorf("run.json: status %q, reason %q; want %s, reason matching %q", run.Status, run.Reason, status, want)
	}
	if show := w.rooda("runs", "show", "last"); run.Reason == "" || !strings.Contains(show.stdout, "\nReason: "+run.Reason+"\n") {
		w.t.Errorf("runs show lacks the reason %q:\n%s", run.Reason, show.stdout)
	}
	if page := w.rooda("runs", "report", "last"); run.Reason == "" || !strings.Contains(page.stdout, `<dd class="reason">`+html.EscapeString(run.Reason)+"</dd>") {
		w.t.Errorf("the run's page lacks the reason %q", run.Reason)
	}
	return run
}

// expectBudget checks the budget run.json says the run reached.
func expectBudget(t *testing.T, run recordedEnd, name, limit, reached string) {
	t.Helper()
	b := run.Budget
	if b == nil || b.Name != name || b.Limit != limit || !regexp.MustCompile("^"+reached+"$").MatchString(b.Reached) {
		t.Errorf("run.json's budget: %+v; want %s, limit %s, reached matching %q", b, name, limit, reached)
	}
}

// TestRecordSaysWhichBudgetEndedTheRun (issue 41, 4): a cost cap and a
// time cap both end a run with status budget and exit 2; the record says
// which, with its figures — run.json's reason and budget, runs show, the
// run's page — so that the two are told apart the next day. A run-wide
// budget of a script is named by its flag, and the reason is the
// budget's words, without the script's line before them.
func TestRecordSaysWhichBudgetEndedTheRun(t *testing.T) {
	t.Parallel()
	t.Run("cost", func(t *testing.T) {
		t.Parallel()
		w := newWorkspace(t, step{"output": transcript(t, "claude-stream-json", "prompt_echo_in_tool_result")}) // $0.0001 an iteration
		w.runAlias("claude-stream-json", "build", "-n", "5", "--max-cost-usd", "0.0002").expect(t, 2)
		run := w.expectReason("budget", regexp.QuoteMeta("the run's agents spent $0.0002, reaching max_cost_usd $0.0002"))
		expectBudget(t, run, "max_cost_usd", "$0.0002", regexp.QuoteMeta("$0.0002"))
	})
	t.Run("time", func(t *testing.T) {
		t.Parallel()
		w := newWorkspace(t, step{"output": "working\n", "delay": "1200ms"})
		w.env = append(w.env, "ROODA_LOOP_MAX_DURATION=1s")
		w.run("build", "-n", "5").expect(t, 2)
		run := w.expectReason("budget", `the loop ran [0-9.]+s, reaching max_duration 1s`)
		expectBudget(t, run, "max_duration", "1s", `[0-9.]+s`)
	})
	t.Run("script_cost", func(t *testing.T) {
		t.Parallel()
		w := newWorkspace(t, step{"output": transcript(t, "claude-stream-json", "prompt_echo_in_tool_result")})
		w.write("rooda-config.yml", "ai_cmd_aliases:\n  fake: {cmd: \""+w.aiCmd()+"\", output: claude-stream-json}\nloop:\n  ai_cmd_alias: fake\n")
		w.write("main.star", "iterate(compose('p', act = [fragment(content = 'Work.')]), max_iterations = 10)\n")
		w.runScript("main.star", "--max-cost-usd", "0.0002").expect(t, 2, "Error: main.star:1:8: the run's agents spent $0.0002")
		run := w.expectReason("budget", regexp.QuoteMeta("the run's agents spent $0.0002, reaching max_cost_usd $0.0002"))
		expectBudget(t, run, "max_cost_usd", "$0.0002", regexp.QuoteMeta("$0.0002"))
	})
	t.Run("script_own", func(t *testing.T) {
		// A budget the script gave iterate() ends that loop alone; the
		// loop's record says why, beside the run's own ending.
		t.Parallel()
		w := newWorkspace(t, step{"output": transcript(t, "claude-stream-json", "prompt_echo_in_tool_result")})
		w.write("rooda-config.yml", "ai_cmd_aliases:\n  fake: {cmd: \""+w.aiCmd()+"\", output: claude-stream-json}\nloop:\n  ai_cmd_alias: fake\n")
		w.write("main.star", "iterate(compose('p', act = [fragment(content = 'Work.')]), max_iterations = 10, max_cost_usd = 0.0002)\n"+
			"iterate(compose('q', act = [fragment(content = 'Work.')]), max_iterations = 1)\n")
		w.runScript("main.star").expect(t, 2)
		run := w.expectReason("max-iters", regexp.QuoteMeta("reached max iterations: 1"))
		why := "the run's agents spent $0.0002, reaching max_cost_usd $0.0002"
		if len(run.Loops) != 2 || run.Loops[0].Status != "budget" || run.Loops[0].Why != why {
			t.Errorf("run.json's loops: %+v", run.Loops)
		}
		if show := w.rooda("runs", "show", "last"); !strings.Contains(show.stdout, "\n  Ended: "+why+"\n") {
			t.Errorf("runs show lacks why the first loop ended:\n%s", show.stdout)
		}
	})
	t.Run("script_time", func(t *testing.T) {
		t.Parallel()
		w := newWorkspace(t, step{"output": "working\n", "delay": "30s"})
		w.write("main.star", "iterate(compose('p', act = [fragment(content = 'Work.')]), max_iterations = 10)\n")
		w.runScript("main.star", "--ai-cmd", w.aiCmd(), "--max-duration", "1s").expect(t, 2)
		run := w.expectReason("budget", regexp.QuoteMeta("the run reached its budget of 1s of run time (--max-duration)"))
		expectBudget(t, run, "--max-duration", "1s", "")
	})
}

// TestRecordSaysWhatEndedTheRun (issue 41, 4): every other ending keeps
// its why too: whose verdict or stop and its reason, the iteration of a
// success, the count of failures, the limit, the stall, a script's
// exit().
func TestRecordSaysWhatEndedTheRun(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		steps  []step
		args   []string
		script string
		git    bool
		status string
		reason string
	}{
		{name: "success", steps: []step{{"output": "working\n"}, {"output": successSignal}}, args: []string{"-n", "5"},
			status: "success", reason: "the agent signaled SUCCESS in iteration 2/5"},
		{name: "failures", steps: []step{{"output": "no\n", "exit": 1}}, args: []string{"-n", "5"},
			status: "aborted", reason: "3 consecutive failures"},
		{name: "limit", steps: []step{{"output": "working\n"}}, args: []string{"-n", "2"},
			status: "max-iters", reason: "reached max iterations: 2"},
		{name: "stall", steps: []step{{"output": "thinking\n"}}, args: []string{"-n", "5", "--stall-iterations", "2"}, git: true,
			status: "stalled", reason: "the last 2 iterations changed no file and signaled nothing"},
		{name: "stop", steps: []step{{"output": "working\n"}}, status: "stopped",
			script: `iterate(compose("p", act = [fragment(content = "Work.")]), max_iterations = 3, on_iteration = lambda it: ("stop", "spent enough"))`,
			reason: regexp.QuoteMeta("the procedure ended the loop in iteration 1/3 (spent enough)")},
		{name: "verdict", steps: []step{{"output": "working\n"}}, status: "success",
			script: `iterate(compose("p", act = [fragment(content = "Work.")]), max_iterations = 3, on_iteration = lambda it: ("success", "tests pass"))`,
			reason: regexp.QuoteMeta("the procedure ended the loop in iteration 1/3 (tests pass)")},
		{name: "exit", steps: []step{{"output": "working\n"}}, status: "exited",
			script: `iterate(compose("p", act = [fragment(content = "Work.")]), max_iterations = 1)` + "\nexit(3)",
			reason: regexp.QuoteMeta("exit(3)")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := newWorkspace(t, tc.steps...)
			if tc.git {
				w.gitInit()
			}
			if tc.script != "" {
				w.write("main.star", tc.script+"\n")
				w.runScript("main.star", "--ai-cmd", w.aiCmd())
			} else {
				w.run(append([]string{"build"}, tc.args...)...)
			}
			if run := w.expectReason(tc.status, tc.reason); run.Budget != nil {
				t.Errorf("a run that reached no budget records one: %+v", run.Budget)
			}
		})
	}
}

// TestRunsShowHasALinePerIteration (issue 41, 4): runs show gives, after
// the run's facts, one line per iteration: its number, outcome, a
// failure's cause, duration, tokens, cost and the count of files it
// changed.
func TestRunsShowHasALinePerIteration(t *testing.T) {
	t.Parallel()
	success := transcript(t, "claude-stream-json", "tool_call_success")
	failure := strings.ReplaceAll(success, `\u003cpromise\u003eSUCCESS`, `\u003cpromise\u003eFAILURE`)
	progress := strings.ReplaceAll(success, `\u003cpromise\u003eSUCCESS\u003c/promise\u003e`, "more to do")
	w := newWorkspace(t, step{"output": progress, "write": "made.txt"}, step{"output": failure}, step{"output": success})
	w.gitInit()
	w.runAlias("claude-stream-json", "build", "-n", "3").expect(t, 0)
	show := w.rooda("runs", "show", "last")
	table := show.stdout[strings.Index(show.stdout, "\nITERATION")+1:]
	lines := strings.Split(strings.TrimSuffix(table, "\n"), "\n")
	want := []*regexp.Regexp{
		regexp.MustCompile(`^ITERATION +OUTCOME +CAUSE +DURATION +TOKENS +COST +FILES CHANGED$`),
		regexp.MustCompile(`^1 +continue +- +[0-9.]+m?s +178 +\$0\.00029 +1$`),
		regexp.MustCompile(`^2 +failure +signal_failure +[0-9.]+m?s +178 +\$0\.00029 +0$`),
		regexp.MustCompile(`^3 +success +- +[0-9.]+m?s +178 +\$0\.00029 +0$`),
	}
	if len(lines) != len(want) {
		t.Fatalf("runs show's iterations: %q, want a header and 3 lines\n%s", lines, show.stdout)
	}
	for i, re := range want {
		if !re.MatchString(lines[i]) {
			t.Errorf("line %d: %q, want %s", i, lines[i], re)
		}
	}
}
