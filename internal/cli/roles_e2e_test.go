package cli

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestScriptMaxIterationsCappedByCommandLine: in a script, -n caps each
// iterate() and the smaller wins: a structural max_iterations=1 stays 1
// under -n 3, and an iterate() of 10 runs 3.
func TestScriptMaxIterationsCappedByCommandLine(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, step{})
	w.write("main.star", `
p = compose("p", act = [fragment(content = "Do one step.")])
once = iterate(p, max_iterations = 1)
many = iterate(p, max_iterations = 10)
print("once", once.iterations, "many", many.iterations)
`)
	o := w.runScript("main.star", "--ai-cmd", w.aiCmd(), "-n", "3")
	o.expect(t, 2, "Starting procedure: p (max 1 iteration)", "Starting procedure: p (max 3 iterations)", "once 1 many 3\n")
	o = w.runScript("main.star", "--ai-cmd", w.aiCmd(), "--dry-run", "-n", "3")
	stdoutHas(t, o, "Max Iterations: 1 (script: main.star:3)", "Max Iterations: 3 (cli: --max-iterations)")
}

// stdoutHas checks that a run's stdout, where a dry run reports, has
// every text.
func stdoutHas(t *testing.T, o outcome, texts ...string) {
	t.Helper()
	for _, s := range texts {
		if !strings.Contains(o.stdout, s) {
			t.Errorf("stdout lacks %q\nstdout:\n%s\nstderr:\n%s", s, o.stdout, o.stderr)
		}
	}
}

// TestContextFunctionGetsThePreviousIteration: a context function of two
// parameters gets the iteration number and the previous iteration (None
// before the first), so what an agent said reaches the next prompt
// without a closure over a mutable dict.
func TestContextFunctionGetsThePreviousIteration(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, step{"output": "built the parser"}, step{"output": "built the printer"})
	w.write("main.star", `
def carry(n, last):
    if last == None:
        return "Iteration %d: nothing before." % n
    return "Iteration %d: last time (%d) you said: %s" % (n, last.number, last.output.strip())

p = compose("p", act = [fragment(content = "Do one step.")])
iterate(p, max_iterations = 2, context = carry)
`)
	if o := w.rooda("script", "check", "main.star"); o.code != 0 {
		t.Errorf("script check refuses a context function of two parameters:\n%s", o.stderr)
	}
	w.runScript("main.star", "--ai-cmd", w.aiCmd()).expect(t, 2)
	first := w.prompt(1)
	second := w.prompt(2)
	if !strings.Contains(first, "Iteration 1: nothing before.") {
		t.Errorf("prompt 1 lacks the first context:\n%s", first)
	}
	if !strings.Contains(second, "Iteration 2: last time (1) you said: built the parser") {
		t.Errorf("prompt 2 lacks what iteration 1 said:\n%s", second)
	}
}

// twoAgents writes a configuration with two aliases, builder-bot and
// reviewer-bot, both the fake agent, the second by a relative path to its
// script so that the two command lines differ.
func twoAgents(w *workspace) {
	w.write("rooda-config.yml", "ai_cmd_aliases:\n  builder-bot: "+w.aiCmd()+"\n  reviewer-bot: "+filepath.Join(binaries(w.t), "fakeagent")+" script.json\n")
}

// TestRotationNamesEveryAgent: it.agent names each iteration's agent, and
// the dry run, run.json, meta.json and rooda runs show name every agent
// of a rotation, not only the first.
func TestRotationNamesEveryAgent(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, step{})
	twoAgents(w)
	w.write("main.star", `
def show(it):
    print("iteration", it.number, "by", it.agent)

p = compose("p", act = [fragment(content = "Do one step.")])
r = iterate(p, max_iterations = 3, agent = ["builder-bot", "reviewer-bot"], on_iteration = show)
print("last by", r.last.agent)
`)
	w.runScript("main.star").expect(t, 2, "iteration 1 by builder-bot\n", "iteration 2 by reviewer-bot\n", "iteration 3 by builder-bot\n", "last by builder-bot\n")
	stdoutHas(t, w.runScript("main.star", "--dry-run"), "Agents: [builder-bot, reviewer-bot] (taking turns, one per iteration)")
	show := w.rooda("runs", "show", "last")
	if !strings.Contains(show.stdout, "Agents: [builder-bot, reviewer-bot]") {
		t.Errorf("runs show does not name every agent:\n%s", show.stdout)
	}
	if o := w.rooda("runs", "show", "last", "--iteration", "2"); !strings.Contains(o.stdout, "Agent: reviewer-bot\n") {
		t.Errorf("runs show --iteration 2 does not name its agent:\n%s", o.stdout)
	}
	if o := w.rooda("runs", "show", "last", "--iteration", "2", "--json"); !strings.Contains(o.stdout, `"agent": "reviewer-bot"`) {
		t.Errorf("meta.json of iteration 2 does not name its agent:\n%s", o.stdout)
	}
	if o := w.rooda("runs", "show", "last", "--json"); !strings.Contains(o.stdout, `"builder-bot",`) || !strings.Contains(o.stdout, `"reviewer-bot"`) {
		t.Errorf("run.json does not name every agent:\n%s", o.stdout)
	}
}

// TestRolesGiveEachAgentItsProcedure: in one iterate(), with one failure
// threshold and one record, a builder and a reviewer take turns, each
// given its own procedure's prompt.
func TestRolesGiveEachAgentItsProcedure(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, step{"exit": 1})
	twoAgents(w)
	w.write("main.star", `
builder = compose("builder", act = [fragment(content = "Build the next piece.")])
reviewer = compose("reviewer", act = [fragment(content = "Review the last piece.")])
r = iterate(builder, max_iterations = 5, failure_threshold = 3,
            agent = [("builder-bot", builder), ("reviewer-bot", reviewer)])
print("status", r.status, "iterations", r.iterations)
`)
	w.runScript("main.star").expect(t, 1, "status aborted iterations 3\n")
	for n, want := range map[int]string{1: "Build the next piece.", 2: "Review the last piece.", 3: "Build the next piece."} {
		got := w.prompt(n)
		other := "Review the last piece."
		if want == other {
			other = "Build the next piece."
		}
		if !strings.Contains(got, want) || strings.Contains(got, other) {
			t.Errorf("prompt %d: want %q and not %q:\n%s", n, want, other, got)
		}
	}
	show := w.rooda("runs", "show", "last")
	if strings.Count(show.stdout, "\nLoop ") != 1 {
		t.Errorf("the roles are not one loop of the record:\n%s", show.stdout)
	}
	stdoutHas(t, w.runScript("main.star", "--dry-run"), "Roles: [builder, reviewer]", "Inline content: reviewer: act fragment 0")
}
