package main

import (
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
