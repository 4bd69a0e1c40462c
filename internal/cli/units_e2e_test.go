package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// costing is a claude stream-json output that succeeds, its CLI
// reporting that it cost dollars.
func costing(t *testing.T, dollars string) string {
	t.Helper()
	out := transcript(t, "claude-stream-json", "prompt_echo_in_tool_result")
	if !strings.Contains(out, `"total_cost_usd":0.0001`) {
		t.Fatal("the transcript no longer reports its cost as the test expects")
	}
	return strings.ReplaceAll(out, `"total_cost_usd":0.0001`, `"total_cost_usd":`+dollars)
}

// follow makes w's fake agent follow steps from its next run on.
func (w *workspace) follow(steps ...step) {
	w.t.Helper()
	data, err := json.Marshal(map[string]any{"record": w.dir, "steps": steps})
	if err != nil {
		w.t.Fatal(err)
	}
	w.write("script.json", string(data))
}

// TestDurationsOneWay (issue 41, 7): config show writes a duration as
// rooda info does ("15m", not 900 beside 15m0s), and what it writes loads
// back: a workspace whose configuration is config show's output runs
// with the same timeouts.
func TestDurationsOneWay(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	w.write("rooda-config.yml", "loop:\n  idle_timeout: 900\n  max_limit_wait: 5400\n  max_output_buffer: 2097152\n")
	show := w.rooda("config", "show")
	for _, want := range []string{"\n  idle_timeout: 15m ", "\n  model_timeout: 10m ", "\n  max_limit_wait: 1h30m ", "\n  max_output_buffer: 2MB "} {
		if !strings.Contains(show.stdout, want) {
			t.Errorf("config show lacks %q:\n%s", strings.TrimSpace(want), show.stdout)
		}
	}
	info := w.rooda("info", "build")
	for _, want := range []string{"Idle Timeout: 15m (workspace: ./rooda-config.yml)", "Model Timeout: 10m (built-in)", "Max Limit Wait: 1h30m (workspace: ./rooda-config.yml)"} {
		if !strings.Contains(info.stdout, want) {
			t.Errorf("rooda info lacks %q:\n%s", want, info.stdout)
		}
	}
	again := filepath.Join(w.dir, "again")
	if err := os.Mkdir(again, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(again, "rooda-config.yml"), []byte(show.stdout), 0o644); err != nil {
		t.Fatal(err)
	}
	loaded := w.roodaIn(again, "info", "build")
	for _, want := range []string{"Idle Timeout: 15m (workspace: ./rooda-config.yml)", "Max Limit Wait: 1h30m (workspace: ./rooda-config.yml)", "Max Output Buffer: 2MB (workspace: ./rooda-config.yml)"} {
		if loaded.code != 0 || !strings.Contains(loaded.stdout, want) {
			t.Errorf("config show's output, loaded again: exit %d, lacks %q:\n%s%s", loaded.code, want, loaded.stdout, loaded.stderr)
		}
	}
}

// TestMoneyOneWay (issue 41, 7): three runs whose agent reported $1.5,
// $0.8 and $1.6 each write their cost to the cent, $1.50, $0.80 and
// $1.60, in the progress line, the summary, runs show (the run's spend,
// its settings, its iterations) and the run's page; a budget of 1.5 is
// $1.50 in rooda info too.
func TestMoneyOneWay(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	for _, cost := range []struct{ reported, shown string }{{"1.5", "$1.50"}, {"0.8", "$0.80"}, {"1.6", "$1.60"}} {
		w.follow(step{"output": costing(t, cost.reported)})
		o := w.runAlias("claude-stream-json", "build", "-n", "1", "--max-cost-usd", "5")
		o.expect(t, 2, fmt.Sprintf("(continue) · 123 tokens, %s\n", cost.shown), fmt.Sprintf("Spent: 123 tokens, %s (input", cost.shown))
		show := w.rooda("runs", "show", "last")
		for _, want := range []string{"\nSpent: 123 tokens, " + cost.shown + " (", "\n  Max Cost Usd: $5.00 (cli: --max-cost-usd)\n"} {
			if !strings.Contains(show.stdout, want) {
				t.Errorf("runs show lacks %q:\n%s", strings.TrimSpace(want), show.stdout)
			}
		}
		if !regexp.MustCompile(`\n1 +continue +- +\S+ +123 +` + regexp.QuoteMeta(cost.shown) + ` +- *\n`).MatchString(show.stdout) {
			t.Errorf("runs show's iteration lacks %s:\n%s", cost.shown, show.stdout)
		}
		if page := w.rooda("runs", "report", "last"); !strings.Contains(page.stdout, "<dt>Cost</dt><dd>"+cost.shown+"</dd>") {
			t.Errorf("the run's page lacks the cost %s", cost.shown)
		}
	}
	if info := w.rooda("info", "build", "--max-cost-usd", "1.5"); !strings.Contains(info.stdout, "Max Cost Usd: $1.50 (cli: --max-cost-usd)") {
		t.Errorf("rooda info:\n%s", info.stdout)
	}
}

// TestRunsListNewestFirstAndByName (issue 41, 7): runs list puts the
// newest run first, as "last" and the run page take it, and --run-name
// lists only the runs started under that name.
func TestRunsListNewestFirstAndByName(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, step{"output": successSignal})
	w.run("build", "-n", "1", "--run-name", "nightly").expect(t, 0)
	w.run("build", "-n", "1").expect(t, 0)
	w.run("build", "-n", "1", "--run-name", "weekly").expect(t, 0)
	ids := func(o outcome) []string {
		var ids []string
		for _, line := range strings.Split(strings.TrimSuffix(o.stdout, "\n"), "\n")[1:] {
			ids = append(ids, strings.Fields(line)[0])
		}
		return ids
	}
	all := runIDs(t, w) // oldest first: they begin with the time they started
	list := w.rooda("runs", "list")
	if got := ids(list); len(got) != 3 || got[0] != all[2] || got[1] != all[1] || got[2] != all[0] {
		t.Errorf("runs list: %q, want the newest first: %q", got, all)
	}
	named := w.rooda("runs", "list", "--run-name", "nightly")
	if got := ids(named); named.code != 0 || len(got) != 1 || got[0] != all[0] {
		t.Errorf("runs list --run-name nightly: exit %d, %q, want [%s]\n%s", named.code, got, all[0], named.stderr)
	}
	none := w.rooda("runs", "list", "--run-name", "monthly")
	if none.code != 0 || !strings.HasPrefix(none.stdout, "No run named monthly is recorded in ") {
		t.Errorf("runs list --run-name monthly: exit %d\n%s%s", none.code, none.stdout, none.stderr)
	}
}

// TestQuietLeavesOutTheTimings (issue 41, 7): -q shows warnings and
// errors only: the summary of a run that ended badly, not the iterations'
// timing beneath it, which a run without -q shows.
func TestQuietLeavesOutTheTimings(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, step{"output": "no\n", "exit": 1})
	quiet := w.run("build", "-n", "1", "-q")
	quiet.expect(t, 1, "ERROR: Aborting after 1 consecutive failure")
	if strings.Contains(quiet.stderr, "Iteration timing") {
		t.Errorf("-q shows the timings:\n%s", quiet.stderr)
	}
	w.run("build", "-n", "1").expect(t, 1, "ERROR: Aborting after 1 consecutive failure", "\n  Iteration timing: min=")
}

// exitCodes is the list of exit codes the help of the commands that run
// gives.
const exitCodes = `   Exit codes, by how the run ended (its status, as rooda runs show gives it):
     0    success, stopped, done
     1    aborted, error; also a usage or configuration error
     2    max-iters, stalled, budget
     130  interrupted (Ctrl+C, SIGTERM, SIGHUP, SIGQUIT)
     N    exited: a script called exit(N, reason), N from 0 to 125
`

// TestHelpListsEveryExitCode (issue 41, 7): run --help and script run
// --help name every exit code a run ends with, budget and stalled
// included; a budget and a stall do end a run with 2.
func TestHelpListsEveryExitCode(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"run", "--help"}, {"script", "run", "--help"}} {
		stdout, stderr, code := exe(t, args...)
		if code != 0 || !strings.Contains(stdout, exitCodes) {
			t.Errorf("rooda %s: exit %d, lacks the exit codes:\n%s%s", strings.Join(args, " "), code, stdout, stderr)
		}
	}
	w := newWorkspace(t, step{"output": "thinking\n"})
	w.gitInit()
	w.run("build", "-n", "5", "--stall-iterations", "2").expect(t, 2, "WARN: Stalled:")
	w.env = append(w.env, "ROODA_LOOP_MAX_DURATION=1s")
	w.follow(step{"output": "working\n", "delay": "1100ms"})
	w.run("build", "-n", "5").expect(t, 2, "WARN: Budget reached:")
}
