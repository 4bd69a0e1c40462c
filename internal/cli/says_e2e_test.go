package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// Issue 41: rooda says what it does. Each test here is one of its
// numbered items, run as a user would meet it.

// TestMaxDurationBoundsEveryRun: --max-duration is the run's time cap for
// a YAML or built-in run too, not only a script's: the run ends, status
// budget, exit 2. run's help shows it among the budgets, and the flags
// only a script procedure takes under a heading of their own.
func TestMaxDurationBoundsEveryRun(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, step{"output": "working", "delay": "1s"})
	o := w.run("build", "-n", "20", "--max-duration", "2500ms")
	o.expect(t, 2, "the run reached its budget of ", " of run time (--max-duration)")
	if status := w.runStatus(); status != "budget" {
		t.Errorf("run.json's status is %q, want budget", status)
	}
	// An agent that ends at once, silent, is waited on before the next
	// start: the budget ends that wait as a budget, not an interrupt.
	spinning := newWorkspace(t, step{})
	spinning.run("build", "-n", "50", "--max-duration", "2s").expect(t, 2, "(--max-duration)")
	if status := spinning.runStatus(); status != "budget" {
		t.Errorf("a budget met while the loop waited on a silent agent: status %q, want budget", status)
	}
	help := w.rooda("build", "--help").stdout
	budgets := regexp.MustCompile(`(?s)Budgets\n(.*?)\n\n`).FindStringSubmatch(help)
	scriptOnly := regexp.MustCompile(`(?s)` + scriptOnlyCategory + `\n(.*?)\n\n`).FindStringSubmatch(help)
	switch {
	case budgets == nil || !strings.Contains(budgets[1], "--max-duration"):
		t.Errorf("build --help does not list --max-duration among the budgets:\n%s", help)
	case scriptOnly == nil || !strings.Contains(scriptOnly[1], "--max-steps") || !strings.Contains(scriptOnly[1], "--lib"):
		t.Errorf("build --help does not set the script procedures' flags apart:\n%s", help)
	case strings.Contains(scriptOnly[1], "--max-duration"):
		t.Errorf("build --help shows --max-duration as a script's alone:\n%s", help)
	}
}

// TestBudgetThatCannotCountIsSaid: a cost or token budget over an agent
// read as text cannot count what it spends: the start of the run and the
// dry run say so, naming the budget, where it was set and how to make it
// count; under --strict the loop fails before any agent starts.
func TestBudgetThatCannotCountIsSaid(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, step{"output": "working"})
	void := regexp.MustCompile(`WARN: max_cost_usd \$[0-9.]+ \(cli: --max-cost-usd\) cannot be counted: .*fakeagent.* is read as text, which reports no tokens and no cost \(an alias with output: `)
	o := w.run("build", "-n", "2", "--max-cost-usd", "0.01", "--max-tokens", "1")
	o.expect(t, 2, "WARN: max_tokens 1 (cli: --max-tokens) cannot be counted: ")
	if !void.MatchString(o.stderr) || strings.Index(o.stderr, "cannot be counted") > strings.Index(o.stderr, "Iteration 1/2 starting") {
		t.Errorf("the run does not say, before its first iteration, that max_cost_usd cannot count:\n%s", o.stderr)
	}
	dry := w.run("build", "-n", "2", "--max-tokens", "1", "--dry-run")
	if dry.code != 0 || !strings.Contains(dry.stdout, "\n  ! max_tokens 1 (cli: --max-tokens) cannot be counted: ") || !strings.Contains(dry.stdout, "Ready to execute") {
		t.Errorf("the dry run (exit %d) does not say the budget cannot count:\n%s", dry.code, dry.stdout)
	}
	fresh := newWorkspace(t, step{"output": "working"})
	strict := fresh.run("build", "-n", "2", "--max-tokens", "1", "--strict")
	strict.expect(t, 1)
	if !strings.Contains(strict.stderr, "No budget can stop this loop\nstrict (cli: --strict) refuses a loop none of whose budgets can be counted:\nmax_tokens 1 ") || fresh.ran(1) {
		t.Errorf("--strict does not refuse the loop before its agent (ran: %v):\n%s", fresh.ran(1), strict.stderr)
	}
}

// TestAICmdOfAKnownCLIReadInItsFormat: --ai-cmd naming claude with its
// stream-json flag is read as claude's stream, as the built-in alias is:
// its SUCCESS, written inside the JSON, ends the loop, and its cost is
// counted; the dry run says how it is read.
func TestAICmdOfAKnownCLIReadInItsFormat(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, step{"output": transcript(t, "claude-stream-json", "tool_call_success")})
	line := w.fakeCLI("claude") + " -p --output-format stream-json --verbose"
	o := w.rooda("build", "--ai-cmd", line, "-n", "3", "--max-cost-usd", "5")
	o.expect(t, 0, "(success) · 178 tokens, ")
	if m := w.metaJSON(1); m["format"] != "claude-stream-json" || strings.Contains(o.stderr, "cannot be counted") {
		t.Errorf("meta.json's format is %v; log:\n%s", m["format"], o.stderr)
	}
	dry := w.rooda("build", "--ai-cmd", line, "--dry-run")
	if !strings.Contains(dry.stdout, "\n  ✓ Output: read as claude-stream-json, the JSON stream its command line asks for\n") {
		t.Errorf("the dry run does not say how the agent is read:\n%s", dry.stdout)
	}
}

// fakeCLI is a program named name, in w's bin directory, that runs the
// fake agent on w's script whatever its arguments: a CLI's name for the
// fake agent.
func (w *workspace) fakeCLI(name string) string {
	return w.fakeCLIIn(filepath.Join(w.dir, "bin"), name)
}

// fakeCLIIn is fakeCLI in the directory dir.
func (w *workspace) fakeCLIIn(dir, name string) string {
	w.t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		w.t.Fatal(err)
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte("#!/bin/sh\nexec "+w.aiCmd()+"\n"), 0o755); err != nil {
		w.t.Fatal(err)
	}
	return path
}

// TestInitSetsUpYourOwnAgent: rooda init --ai-cmd writes a configuration
// whose runs start that command line, with no flag to repeat; with
// --agent NAME it is the user's alias NAME, read in the format its
// command line asks a known CLI for. A program that is not there is
// refused, naming it, and nothing is written.
func TestInitSetsUpYourOwnAgent(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, step{"output": "working"})
	missing := w.rooda("init", "--ai-cmd", "./no-such-agent --fast")
	missing.expect(t, 1)
	if !strings.Contains(missing.stderr, `--ai-cmd "./no-such-agent --fast": `) || !strings.Contains(missing.stderr, "no-such-agent") {
		t.Errorf("init of a missing program:\n%s", missing.stderr)
	}
	if _, err := os.Stat(filepath.Join(w.dir, "rooda-config.yml")); err == nil {
		t.Errorf("init wrote a configuration naming a program that is not there")
	}
	own := w.rooda("init", "--ai-cmd", w.aiCmd())
	own.expect(t, 0)
	if !strings.Contains(own.stdout, "the agent is your command line, ") {
		t.Errorf("init says:\n%s", own.stdout)
	}
	w.rooda("build", "-n", "1").expect(t, 2)
	if !w.ran(1) {
		t.Fatalf("the run of init's configuration did not start the agent")
	}
	line := w.fakeCLI("claude") + " -p --output-format stream-json"
	w.rooda("init", "--force", "--ai-cmd", line, "--agent", "mine").expect(t, 0)
	shown := w.rooda("config", "show").stdout
	if !strings.Contains(shown, "ai_cmd_alias: mine ") || !strings.Contains(shown, "  mine: {cmd: "+line+", output: claude-stream-json}") {
		t.Errorf("config show after init --agent mine:\n%s", shown)
	}
}

// TestRunResumeIsRunsResume: "rooda build --resume ID" resumes the run
// with the command line that started it, as "rooda runs resume ID" does:
// its --ai-cmd and -n are not repeated, and it ends as the run would
// have; a global flag given with it (-v) is the resume's too. Another
// procedure's name is refused, naming the run's.
func TestRunResumeIsRunsResume(t *testing.T) {
	t.Parallel()
	// Each iteration takes a second, so that the kill lands in the third
	// however late it comes on a loaded machine.
	d := durableRun{w: newWorkspace(t, step{"output": "working", "delay": "1s"})}
	d.args = []string{"run", "build", "--ai-cmd", d.w.aiCmd(), "-n", "4"}
	d.killIn("Iteration 3/4 starting")
	runDir, _ := d.recorded()
	id := filepath.Base(runDir)
	if o := d.rooda("audit-impl", "--resume", id); o.code != 1 || !strings.Contains(o.stderr, "run "+id+" ran build, not audit-impl") {
		t.Errorf("resumed as another procedure: exit %d\n%s", o.code, o.stderr)
	}
	o := d.rooda("build", "--resume", id, "-v")
	o.expect(t, 2, "Reached max iterations: 4")
	if !strings.Contains(o.stdout, "working") {
		t.Errorf("-v given to the resume did not stream the agent's output:\n%s", o.stdout)
	}
	if _, e := d.recorded(); e.Status != "max-iters" || e.Iterations != 4 {
		t.Errorf("the resumed run ended %s after %d iterations, want max-iters after 4", e.Status, e.Iterations)
	}
}

// TestSandboxDryRunWritesWhatTheRunWrites: on a fresh HOME, the paths a
// sandbox's dry run says the agent writes are those its first iteration
// is given: an alias's state directory under ~/.cache makes ~/.cache, a
// cache every agent writes, before the agent starts, and the dry run
// names it too.
func TestSandboxDryRunWritesWhatTheRunWrites(t *testing.T) {
	t.Parallel()
	needsLandlock(t, 1, "a sandbox's writes")
	w := newWorkspace(t, step{"output": "working"})
	home := t.TempDir()
	w.env = append(w.env, "HOME="+home, "XDG_CACHE_HOME=")
	w.write("rooda-config.yml", "ai_cmd_aliases:\n  fake: {cmd: \""+w.aiCmd()+"\", sandbox_write: [\"~/.cache/fake\"]}\n")
	dry := w.rooda("build", "--ai-cmd-alias", "fake", "--sandbox", "workspace", "--dry-run")
	line := regexp.MustCompile(`\n    writes: (.*), its own TMPDIR\n`).FindStringSubmatch(dry.stdout)
	if line == nil {
		t.Fatalf("the dry run names no writes:\n%s", dry.stdout)
	}
	w.rooda("build", "--ai-cmd-alias", "fake", "--sandbox", "workspace", "-n", "1").expect(t, 2)
	var given []string
	for _, p := range w.meta(1).Sandbox.Write {
		if !strings.Contains(p, "rooda-agent-") { // its own TMPDIR
			given = append(given, p)
		}
	}
	if strings.Join(given, ", ") != line[1] || !slices.Contains(given, filepath.Join(home, ".cache")) {
		t.Errorf("the dry run says the agent writes\n  %s\nits first iteration was given\n  %s", line[1], strings.Join(given, ", "))
	}
}

// TestBudgetOfAChosenAgentIsSaid: a script's agent function may choose, in
// a later iteration, an agent whose spending a budget cannot count; the
// plan judged only the first iteration's, so the log says so as that
// agent is chosen, once.
func TestBudgetOfAChosenAgentIsSaid(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, step{"output": transcript(t, "claude-stream-json", "tool_call_success")}, step{"output": "working"})
	w.write("rooda-config.yml", "ai_cmd_aliases:\n  json: {cmd: \""+w.aiCmd()+"\", output: claude-stream-json}\n  plain: \""+w.aiCmd()+"\"\n")
	w.write("main.star", `def pick(n):
    return "json" if n == 1 else "plain"

iterate(procedure("build"), max_iterations = 3, agent = pick, max_cost_usd = 5, promises = {"NEVER": "success"})
`)
	o := w.rooda("script", "run", "main.star")
	warning := "WARN: max_cost_usd $5.00 (script: main.star:4) counts nothing of what plain, chosen by pick, spends: plain is read as text"
	if n := strings.Count(o.stderr, "counts nothing of what plain"); n != 1 || !strings.Contains(o.stderr, warning) || strings.Contains(o.stderr, "cannot be counted") {
		t.Errorf("the log says %d times that the budget cannot count the chosen agent, want once:\n%s", n, o.stderr)
	}
}

// TestCostBudgetOverCodexSaidOnce: codex reports tokens without a cost,
// and with no model_prices nothing prices them: the start says that
// max_cost_usd cannot count it, and the loop does not say it again as it
// meets the tokens it cannot price.
func TestCostBudgetOverCodexSaidOnce(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, step{"output": transcript(t, "codex-json", "tool_call_success")})
	o := w.runAlias("codex-json", "build", "-n", "2", "--max-cost-usd", "1")
	o.expect(t, 0, "WARN: max_cost_usd $1.00 (cli: --max-cost-usd) cannot be counted: fake (codex-json) reports tokens but no cost")
	if n := strings.Count(o.stderr, "max_cost_usd"); n != 1 {
		t.Errorf("the log names max_cost_usd %d times, want once:\n%s", n, o.stderr)
	}
}
