package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestFailureCauses: each way the fake agent can fail gives its cause at
// the end of the failure's warning, in meta.json and in the JSON log's
// iteration_finished event.
func TestFailureCauses(t *testing.T) {
	for _, tc := range []struct {
		cause string
		step  step
		args  []string
	}{
		{"agent_failed", step{"output": "oops\n", "exit": 3}, nil},
		{"signal_failure", step{"output": failureSignal + "\n"}, nil},
		{"timeout", step{"delay": "30s"}, []string{"--iteration-timeout", "1"}},
		{"crash", step{"output": "about to crash\n", "crash": "SIGSEGV"}, nil},
	} {
		t.Run(tc.cause, func(t *testing.T) {
			t.Parallel()
			w := newWorkspace(t, tc.step)
			args := append([]string{"build", "-n", "1"}, tc.args...)
			w.run(args...).expect(t, 1, " ["+tc.cause+"]\n")
			if m := w.meta(1); m.Cause != tc.cause {
				t.Errorf("meta.json: cause %q, want %q", m.Cause, tc.cause)
			}
			if o := w.rooda("runs", "show", "last", "--iteration", "1"); !strings.Contains(o.stdout, "\nCause: "+tc.cause+"\n") {
				t.Errorf("runs show lacks the cause:\n%s%s", o.stdout, o.stderr)
			}
			events := everyLineJSON(t, w.run(append(args, "--log-format", "json")...).stderr)
			if !hasField(events, "iteration_finished", "cause", tc.cause) {
				t.Errorf("no iteration_finished event with cause %q", tc.cause)
			}
		})
	}
}

// hasField reports whether one of events is the event named with the
// field key equal to want.
func hasField(events []map[string]any, name, key, want string) bool {
	for _, e := range events {
		if e["event"] == name && e[key] == want {
			return true
		}
	}
	return false
}

// TestCauseNoStart: an agent whose executable is on PATH but cannot be
// started (its interpreter is missing) fails with cause no_start.
func TestCauseNoStart(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	agent := filepath.Join(w.dir, "broken-agent")
	if err := os.WriteFile(agent, []byte("#!/no/such/interpreter\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(binary(t), "run", "build", "-n", "1", "--ai-cmd", agent)
	cmd.Dir, cmd.Env = w.dir, w.env
	w.wait(w.start(cmd)).expect(t, 1, "WARN: Iteration 1/1: the agent could not start: ", " [no_start]\n")
	if m := w.meta(1); m.Cause != "no_start" {
		t.Errorf("meta.json: cause %q", m.Cause)
	}
}

// TestScriptSeesTheCause: on_iteration's it.cause is the agent's; the
// failure a script declares of an iteration the agent did not fail is
// the procedure's, as r.last.cause and meta.json say; an iteration whose
// agent failed keeps its cause in r.last.cause whatever the verdict
// ("continue" here).
func TestScriptSeesTheCause(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, step{"exit": 4}, step{})
	w.write("main.star", `
seen = []
def judge(it):
    seen.append(it.cause)
    return "failure" if it.number == 2 else None

p = compose("p", act = [fragment(content = "Act.")])
r = iterate(p, max_iterations = 2, failure_threshold = 3, on_iteration = judge)
print("seen:", seen, "last:", r.last.cause)
ok = iterate(p, max_iterations = 1, on_iteration = lambda it: "continue")
print("continue:", ok.last.cause)
`)
	w.env = append(w.env, "ROODA_LOOP_AI_CMD="+w.aiCmd())
	o := w.runScript("main.star")
	for _, want := range []string{`seen: ["agent_failed", None] last: procedure`, "continue: agent_failed", " [procedure]\n"} {
		if !strings.Contains(o.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, o.stderr)
		}
	}
	runs, _ := filepath.Glob(filepath.Join(w.dir, ".rooda/runs/*/iterations/0002/meta.json"))
	if len(runs) != 1 {
		t.Fatalf("meta.json of iteration 2: %v", runs)
	}
	if data := readText(t, runs[0]); !strings.Contains(data, `"cause": "procedure"`) {
		t.Errorf("meta.json:\n%s", data)
	}
}
