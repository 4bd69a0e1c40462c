package main

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

// TestRotationReadsEachAgentsFormat: agents that take turns are each read
// in the format their alias declares, not only the first: gemini's turn
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
r = iterate(p, max_iterations = 4, agent = ["fake-claude", "fake-gemini"], on_iteration = show)
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
