package cli

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// gitInit makes the workspace a git repository with one commit, its fake
// agent's own files ignored: what an iteration changes is the agent's
// work alone.
func (w *workspace) gitInit() {
	w.t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		w.t.Skip("git is not installed")
	}
	w.write(".gitignore", "prompt-*.txt\nenv-*.txt\npids\nscript.json\nno-global/\n")
	for _, args := range [][]string{{"init", "--quiet"}, {"add", "."}, {"-c", "user.name=t", "-c", "user.email=t@example.org", "commit", "--quiet", "-m", "start"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = w.dir
		if out, err := cmd.CombinedOutput(); err != nil {
			w.t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
}

// TestStallIterations: a loop whose agent goes on changing nothing and
// signaling nothing ends, status stalled, exit 2, after stall_iterations
// such iterations in a row; one that changed a file does not count.
func TestStallIterations(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, step{"write": "made.txt"}, step{"out": "thinking"})
	w.gitInit()
	o := w.run("build", "-n", "6", "--stall-iterations", "2")
	o.expect(t, 2, "WARN: Stalled: the last 2 iterations changed no file and signaled nothing (3 iterations completed, total: ")
	runs, _ := filepath.Glob(filepath.Join(w.dir, ".rooda", "runs", "*", "run.json"))
	if len(runs) != 1 {
		t.Fatalf("runs recorded: %v", runs)
	}
	data := readText(t, runs[0])
	var run struct {
		Status   string `json:"status"`
		ExitCode int    `json:"exit_code"`
	}
	if err := json.Unmarshal([]byte(data), &run); err != nil || run.Status != "stalled" || run.ExitCode != 2 {
		t.Errorf("run.json: %s", data)
	}
	meta := readText(t, filepath.Join(filepath.Dir(runs[0]), "iterations", "0001", "meta.json"))
	if !strings.Contains(meta, `"files_changed": [`) || !strings.Contains(meta, `"made.txt"`) {
		t.Errorf("iteration 1's meta.json: %s", meta)
	}
}

// TestChangedInAScript: on_iteration reads what each iteration changed,
// it.changed and it.files_changed, and may stop on it.
func TestChangedInAScript(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, step{"write": "made.txt"}, step{"out": "thinking"})
	w.gitInit()
	w.write("s.star", `
def seen(it):
    print("iteration", it.number, it.changed, it.files_changed)
    return None if it.changed else "abort"

iterate(procedure("build"), agent = agent(cmd = args[0]), max_iterations = 5, on_iteration = seen)
`)
	cmd := exec.Command(binary(t), "script", "run", "s.star", "--", w.aiCmd())
	cmd.Dir, cmd.Env = w.dir, w.env
	out, _ := cmd.CombinedOutput()
	for _, want := range []string{`iteration 1 True ["made.txt"]`, `iteration 2 False []`, "the procedure's on_iteration declared abort"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}
