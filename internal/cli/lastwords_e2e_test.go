package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFailureSaysWhyInTheAgentsWords: a failed iteration's warning is
// followed by the agent's last non-blank lines, stderr included, and
// where its whole output is kept; in JSON they are fields of the warning.
func TestFailureSaysWhyInTheAgentsWords(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, step{"output": "starting\nreading the task\n\n", "stderr": "Error: Not logged in · Please run /login\n\n", "exit": 1})
	o := w.run("build", "-n", "1")
	o.expect(t, 1, "WARN: Iteration 1/1: the agent failed (exit code 1) [agent_failed]\n"+
		"  > starting\n  > reading the task\n  > Error: Not logged in · Please run /login\n  the whole output: .rooda/runs/")
	_, file, _ := strings.Cut(o.stderr, "  the whole output: ")
	file, _, _ = strings.Cut(file, "\n")
	if data, err := os.ReadFile(filepath.Join(w.dir, file)); err != nil || !strings.HasSuffix(file, "/iterations/0001/output.txt") || !strings.Contains(string(data), "Not logged in") {
		t.Errorf("the whole output %q: %v\n%s", file, err, data)
	}

	events := everyLineJSON(t, w.run("build", "-n", "1", "--log-format", "json").stderr)
	for _, e := range events {
		if e["event"] != "warning" || e["cause"] != "agent_failed" {
			continue
		}
		lines, _ := e["last_lines"].([]any)
		file, _ := e["output_file"].(string)
		if len(lines) != 3 || lines[2] != "Error: Not logged in · Please run /login" || !strings.HasSuffix(file, "/iterations/0001/output.txt") {
			t.Errorf("the warning's fields: last_lines %q, output_file %q", lines, file)
		}
		return
	}
	t.Error("no warning with cause agent_failed in the JSON log")
}
