package cli

import (
	"path/filepath"
	"strings"
	"testing"
)

// structuredAgents writes a configuration with two aliases of the fake
// agent, each declaring a CLI's JSON output: fake-claude prints claude's
// stream-json, fake-gemini gemini's.
func structuredAgents(w *workspace) {
	w.write("rooda-config.yml", "ai_cmd_aliases:\n"+
		"  fake-claude: {cmd: \""+w.aiCmd()+"\", output: claude-stream-json}\n"+
		"  fake-gemini: {cmd: \""+filepath.Join(binaries(w.t), "fakeagent")+" script.json\", output: gemini-stream-json}\n")
}

// TestRotationReadsEachAgentsFormat: agents that take turns, with roles or
// without, are each read in the format their alias declares, not only the
// first: gemini's turn (a reviewer's role)
// echoes its prompt (both promise tags) in a JSON user message and then
// says SUCCESS, which ends the loop; each turn's tokens and transcript are
// recorded and -v shows transcripts, never the JSON.
func TestRotationReadsEachAgentsFormat(t *testing.T) {
	t.Parallel()
	echo := strings.Replace(transcript(t, "gemini-stream-json", "tool_call_success"),
		"print <promise>SUCCESS</promise>.", "print <promise>SUCCESS</promise>; if blocked, <promise>FAILURE</promise>.", 1)
	w := newWorkspace(t,
		step{"output": transcript(t, "claude-stream-json", "prompt_echo_in_tool_result")},
		step{"output": echo})
	structuredAgents(w)
	w.write("main.star", `
def show(it):
    print("iteration", it.number, "by", it.agent, "signal", it.signal, "tokens", it.usage.total if it.usage else None)

p = compose("p", act = [fragment(content = "Do one step.")])
review = compose("review", act = [fragment(content = "Review the step.")])
r = iterate(p, max_iterations = 4, agent = ["fake-claude", ("fake-gemini", review)], on_iteration = show)
print("status", r.status)
`)
	o := w.runScript("main.star", "-v")
	o.expect(t, 0, "iteration 1 by fake-claude signal None tokens ", "iteration 2 by fake-gemini signal SUCCESS tokens 410\n", "status success\n",
		"Iteration 2/4 completed in ", "(success) · 410 tokens")
	if strings.Contains(o.stdout, `"type":"message"`) || !strings.Contains(o.stdout, "→ run_shell_command: echo hi > f.txt") {
		t.Errorf("-v shows gemini's JSON, not its transcript:\n%s", o.stdout)
	}
	for n, format := range map[int]string{1: "claude-stream-json", 2: "gemini-stream-json"} {
		m := w.metaJSON(n)
		if m["format"] != format || m["spent"] == nil {
			t.Errorf("meta.json of iteration %d: %v", n, m)
		}
	}
	runs, _ := filepath.Glob(filepath.Join(w.dir, ".rooda", "runs", "*", "iterations", "0002", "transcript.txt"))
	if len(runs) != 1 || !strings.Contains(readText(t, runs[0]), "Done. <promise>SUCCESS</promise>") {
		t.Errorf("iteration 2 has no transcript: %v", runs)
	}
}

// TestAgentChosenEachIteration: agent= may be a function of the
// iteration: escalation from a cheap agent to a strong one in one loop.
// It is called before each iteration with the previous one, each chosen
// agent is read in its own format, named in the log, the record and
// it.agent, and the dry run says who chooses.
func TestAgentChosenEachIteration(t *testing.T) {
	t.Parallel()
	echo := strings.Replace(transcript(t, "gemini-stream-json", "tool_call_success"),
		"print <promise>SUCCESS</promise>.", "print <promise>SUCCESS</promise>; if blocked, <promise>FAILURE</promise>.", 1)
	w := newWorkspace(t,
		step{"output": "cannot do it\n", "exit": 1},
		step{"output": "still cannot\n", "exit": 1},
		step{"output": echo})
	structuredAgents(w)
	w.write("rooda-config.yml", readText(t, filepath.Join(w.dir, "rooda-config.yml"))+"  cheap: "+w.aiCmd()+"\n")
	w.write("main.star", `
def escalate(n, last):
    print("choosing", n, "after", last.agent if last else None)
    if last and last.consecutive_failures >= 2:
        return (agent("fake-gemini", name = "strong"), rescue)
    return "cheap"

p = compose("p", act = [fragment(content = "Do one step.")])
rescue = compose("rescue", act = [fragment(content = "Find why the last two tries failed.")])
r = iterate(p, max_iterations = 5, failure_threshold = 3, agent = escalate,
            on_iteration = lambda it: print(it.number, it.agent, it.role, it.outcome, it.usage.total if it.usage else None))
print("status", r.status)
`)
	o := w.runScript("main.star")
	o.expect(t, 0, "choosing 1 after None\n", "choosing 2 after cheap\n", "choosing 3 after cheap\n",
		"1 cheap None failure None\n", "2 cheap None failure None\n", "3 strong rescue success 410\n", "status success\n",
		"Iteration 3/5 completed in ", "(success) · 410 tokens")
	if m := w.metaJSON(3); m["agent"] != "strong" || m["format"] != "gemini-stream-json" {
		t.Errorf("meta.json of iteration 3: %v", m)
	}
	if p := w.prompt(3); !strings.Contains(p, "Procedure: rescue\n") || !strings.Contains(p, "Find why the last two tries failed.") {
		t.Errorf("the chosen role's prompt did not reach the agent:\n%s", p)
	}
	if show := w.rooda("runs", "show", "last", "--json"); !strings.Contains(show.stdout, `"strong"`) {
		t.Errorf("run.json does not name the agent chosen later:\n%s", show.stdout)
	}
	stdoutHas(t, w.runScript("main.star", "--dry-run"), "Agents: chosen by escalate before each iteration (iteration 1: cheap)\n")
}

// TestAgentFunctionMistakes: what an agent function returns is checked as
// it is chosen, and the script's error names the function and the
// iteration: no agent, a list, an alias that does not exist; a function
// that fails stops the script with its own traceback.
func TestAgentFunctionMistakes(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, step{"output": "working\n"})
	w.write("rooda-config.yml", "ai_cmd_aliases:\n  cheap: "+w.aiCmd()+"\n")
	for body, want := range map[string]string{
		`return None if n > 1 else "cheap"`:                       "agent function pick returned None for iteration 2: want one agent",
		`return ["cheap"] if n > 1 else "cheap"`:                  `agent function pick returned ["cheap"] for iteration 2: want one agent`,
		`return "cheapp" if n > 1 else "cheap"`:                   `agent function pick, iteration 2: unknown alias "cheapp" (did you mean "cheap"?)`,
		`return "cheap" if n < 2 else fail("broke")`:              "broke",
		`return "cheap" if n < 2 else "no-such-program-here --x"`: "Error in iterate: cannot choose the agent of iteration 2: AI command binary not found: no-such-program-here",
	} {
		w.write("main.star", "def pick(n):\n    "+body+"\n\niterate(compose(\"p\", act = [fragment(content = \"Work.\")]), max_iterations = 3, agent = pick)\n")
		o := w.runScript("main.star")
		o.expect(t, 1, want, "Iteration 1/3 completed")
		if strings.Contains(o.stderr, "Iteration 2/3 completed") {
			t.Errorf("%s: iteration 2 ran:\n%s", body, o.stderr)
		}
	}
}

// rotationWorkspace has three aliases of the fake agent: a1 reads as
// claude's stream-json, a2 and a3 as text. Its first step is claude's
// "Not logged in", which the first iteration's agent, a1, prints.
func rotationWorkspace(t *testing.T, rest ...step) *workspace {
	steps := append([]step{{"output": transcript(t, "claude-stream-json", "not_logged_in"), "exit": 1}}, rest...)
	w := newWorkspace(t, steps...)
	w.write("rooda-config.yml", "ai_cmd_aliases:\n"+
		"  a1: {cmd: \""+w.aiCmd()+"\", output: claude-stream-json}\n"+
		"  a2: {cmd: \""+w.aiCmd()+"\"}\n"+
		"  a3: {cmd: \""+w.aiCmd()+"\"}\n")
	return w
}

// TestRotationGoesOnPastALoginFailure: in a rotation a1 → a2 → a3, a1
// cannot log in: it is taken out for the rest of the loop, the log says
// so once, and the turns go round a2 and a3 (the fourth iteration is
// a2's, not a1's), to success.
func TestRotationGoesOnPastALoginFailure(t *testing.T) {
	t.Parallel()
	w := rotationWorkspace(t, step{"output": "step\n"}, step{"output": "step\n"}, step{"output": successSignal + "\n"})
	w.write("main.star", `r = iterate(compose("p", act = [fragment(content = "Work.")]), agent = ["a1", "a2", "a3"], max_iterations = 6)
print("status", r.status)
`)
	o := w.runScript("main.star")
	o.expect(t, 0, "status success\n", "Iteration 1/6: a1 cannot log in (Not logged in · Please run /login): taken out of the rotation for the rest of the loop; the loop goes on with a2, a3. Log claude in")
	if n := strings.Count(o.stderr, "taken out of the rotation"); n != 1 {
		t.Errorf("the log says %d times that a1 is out:\n%s", n, o.stderr)
	}
	for i, want := range []string{"a1", "a2", "a3", "a2"} {
		if m := w.meta(i + 1); m.Agent != want {
			t.Errorf("iteration %d ran %s, want %s", i+1, m.Agent, want)
		}
	}
}

// TestAgentFunctionChoosingAnAgentTakenOut: a script's agent function
// that chooses again an agent taken out of the rotation gets an error
// naming it, and the iteration it chose for.
func TestAgentFunctionChoosingAnAgentTakenOut(t *testing.T) {
	t.Parallel()
	w := rotationWorkspace(t, step{"output": "step\n"})
	w.write("main.star", `def pick(n):
    return ["a1", "a2", "a1"][n - 1]

r = iterate(compose("p", act = [fragment(content = "Work.")]), agent = pick, max_iterations = 3)
print("status", r.status)
`)
	o := w.runScript("main.star")
	if o.code == 0 || !strings.Contains(o.stderr, "cannot choose the agent of iteration 3: the function chose a1, which was taken out of the rotation in iteration 1") {
		t.Fatalf("a function choosing an agent taken out: exit %d\n%s", o.code, o.stderr)
	}
	if m := w.meta(2); m.Agent != "a2" {
		t.Errorf("iteration 2 ran %s, want a2", m.Agent)
	}
}

// TestAliasListTakesTurns: ai_cmd_alias given as a list (in
// rooda-config.yml, or separated by ',' on the command line) makes the
// agents of a YAML procedure take turns, each read in its alias's
// format; one that cannot log in is taken out of the rotation.
func TestAliasListTakesTurns(t *testing.T) {
	t.Parallel()
	w := rotationWorkspace(t, step{"output": "step\n"}, step{"output": "step\n"}, step{"output": successSignal + "\n"})
	config := readText(t, filepath.Join(w.dir, "rooda-config.yml"))
	w.write("rooda-config.yml", config+"loop:\n  ai_cmd_alias: [a1, a2, a3]\n")
	o := w.roodaIn(w.dir, "run", "build", "-n", "6")
	o.expect(t, 0, "Iteration 1/6: a1 cannot log in (Not logged in · Please run /login): taken out of the rotation for the rest of the loop; the loop goes on with a2, a3.")
	for i, want := range []string{"a1", "a2", "a3", "a2"} {
		if m := w.meta(i + 1); m.Agent != want {
			t.Errorf("iteration %d ran %s, want %s", i+1, m.Agent, want)
		}
	}
	w.write("rooda-config.yml", config)
	o = w.roodaIn(w.dir, "run", "build", "-n", "1", "--ai-cmd-alias", "a2,a4")
	o.expect(t, 1, `unknown AI command alias "a4"`)
}
