package cli

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// TestScriptSeesWhatTheAgentSaid: on_iteration sees it.text, the assistant
// text decoded from a CLI's JSON (no JSON, no tool result), while
// it.output keeps the JSON; for a text agent it.text is the output
// itself. it.prompt is the exact prompt the agent was given, it.procedure
// and it.role name the role's procedure, and agent(name=…) names the
// agent in it.agent, the log, the record and what a context function
// hands on to the next prompt.
func TestScriptSeesWhatTheAgentSaid(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t,
		step{"output": transcript(t, "claude-stream-json", "prompt_echo_in_tool_result")},
		step{"output": "plain words\n"})
	structuredAgents(w)
	w.write("rooda-config.yml", readText(t, filepath.Join(w.dir, "rooda-config.yml"))+"  plain: "+w.aiCmd()+"\n")
	w.write("main.star", `
def show(it):
    print("%d agent=%s procedure=%s role=%s" % (it.number, it.agent, it.procedure, it.role))
    print("%d text=%r" % (it.number, it.text))
    print("%d JSON in output: %s, in text: %s, text is output: %s" % (it.number, '"type":' in it.output, '"type":' in it.text, it.text == it.output))
    print("%d prompt: %r" % (it.number, it.prompt[-60:]))

def handover(n, last):
    if last == None:
        return "Nothing before."
    return "Handed over by " + last.agent + "."

builder = compose("builder", act = [fragment(content = "Build.")])
reviewer = compose("reviewer", act = [fragment(content = "Review.")])
cheap = agent("fake-claude", name = "cheap-model")
r = iterate(builder, max_iterations = 2, agent = [cheap, ("plain", reviewer)], context = handover, on_iteration = show)
`)
	o := w.runScript("main.star")
	o.expect(t, 2,
		"1 agent=cheap-model procedure=builder role=None\n",
		"1 text=\"Still working on it.\"\n",
		"1 JSON in output: True, in text: False, text is output: False\n",
		"2 agent=plain procedure=reviewer role=reviewer\n",
		"2 text=\"plain words\\n\"\n",
		"2 JSON in output: False, in text: False, text is output: True\n",
		"Iteration 1/2 completed in ",
	)
	for n := 1; n <= 2; n++ {
		p := w.prompt(n)
		if want := fmt.Sprintf("%d prompt: %q\n", n, p[len(p)-60:]); !strings.Contains(o.stderr, want) {
			t.Errorf("it.prompt of iteration %d is not the prompt given: want %s\n%s", n, want, o.stderr)
		}
	}
	if !strings.Contains(w.prompt(2), "Handed over by cheap-model.") {
		t.Errorf("the handover names the agent otherwise:\n%s", w.prompt(2))
	}
	if m := w.metaJSON(1); m["agent"] != "cheap-model" {
		t.Errorf("meta.json of iteration 1 names %v", m["agent"])
	}
	if show := w.rooda("runs", "show", "last"); !strings.Contains(show.stdout, "Agents: [cheap-model, plain]") {
		t.Errorf("runs show:\n%s", show.stdout)
	}
}

// TestCustomPromiseWords: iterate(promises=…) puts the custom words in the
// preamble and the host looks for them: the agent's echo of its prompt,
// which names them, is no signal; SUCCESS, which the prompt no longer
// asks for, is none either; the custom word ends the loop.
func TestCustomPromiseWords(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t,
		step{"echo": true},
		step{"output": "<promise>SUCCESS</promise>\n"},
		step{"output": "All done.\n<promise>COMPLETE</promise>\n"})
	w.write("main.star", `
p = compose("p", act = [fragment(content = "Do one step.")])
r = iterate(p, max_iterations = 5, promises = {"COMPLETE": "success"},
            on_iteration = lambda it: print(it.number, it.signal))
print("status", r.status, "after", r.iterations)
`)
	o := w.runScript("main.star", "--ai-cmd", w.aiCmd())
	o.expect(t, 0, "1 None\n", "2 None\n", "3 SUCCESS\n", "status success after 3\n")
	if p := w.prompt(1); !strings.Contains(p, "- When you complete all tasks successfully, output: <promise>COMPLETE</promise>\n") ||
		strings.Contains(p, "<promise>SUCCESS</promise>") || !strings.Contains(p, "<promise>FAILURE</promise>") {
		t.Errorf("the preamble does not name the custom word alone:\n%s", p)
	}
	dry := w.runScript("main.star", "--ai-cmd", w.aiCmd(), "--dry-run")
	stdoutHas(t, dry, "Promises: success COMPLETE, failure FAILURE\n", "output: <promise>COMPLETE</promise>")
	w.write("bad.star", `iterate(compose("p", act = [fragment(content = "Work.")]), promises = {"ALL DONE": "success"})`+"\n")
	w.runScript("bad.star", "--ai-cmd", w.aiCmd()).expect(t, 1, `iterate: promise word "ALL DONE": want letters, digits, _ or -`)
}

// TestStopOnReadsWhatTheAgentSaid: stop_on looks in it.text, so words of
// the prompt that a tool's result echoes in a CLI's JSON do not end the
// loop; the agent's own words do.
func TestStopOnReadsWhatTheAgentSaid(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t,
		step{"output": transcript(t, "claude-stream-json", "prompt_echo_in_tool_result")},
		step{"output": transcript(t, "claude-stream-json", "prompt_echo_in_tool_result")})
	w.write("main.star", `
load("@rooda//termination.star", "stop_on")
p = compose("p", act = [fragment(content = "Do one step.")])
print("echoed:", iterate(p, max_iterations = 1, on_iteration = stop_on("When done")).status)
print("said:", iterate(p, max_iterations = 1, on_iteration = stop_on("Still working")).status)
`)
	w.write("rooda-config.yml", "ai_cmd_aliases:\n  fake: {cmd: \""+w.aiCmd()+"\", output: claude-stream-json}\n")
	w.runScript("main.star", "--ai-cmd-alias", "fake").expect(t, 0, "echoed: max-iters\n", "said: success\n")
}
