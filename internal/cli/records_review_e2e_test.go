package cli

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// rewriteRun changes the run.json of run id as edit says: a record as a
// rooda killed outright, or a reused pid, would leave it.
func (w *workspace) rewriteRun(id string, edit func(run map[string]any)) {
	w.t.Helper()
	path := filepath.Join(w.dir, ".rooda", "runs", id, "run.json")
	data, err := os.ReadFile(path)
	if err != nil {
		w.t.Fatal(err)
	}
	var run map[string]any
	if err := json.Unmarshal(data, &run); err != nil {
		w.t.Fatal(err)
	}
	edit(run)
	if data, err = json.Marshal(run); err != nil {
		w.t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		w.t.Fatal(err)
	}
}

// leftRunning makes run a record left "running" by process pid.
func leftRunning(pid int) func(map[string]any) {
	return func(run map[string]any) {
		run["status"], run["pid"] = "running", pid
		delete(run, "ended")
		delete(run, "exit_code")
	}
}

// deadPid is the pid of a process that has ended.
func deadPid(t *testing.T) int {
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Skip(err)
	}
	return gone.Process.Pid
}

// TestPruningKeepsADirectoryNamedLikeARun: a user's directory named as
// rooda names runs, holding a run.json of its own that names no run, is
// not a run: pruning keeps it and all it holds, list and last leave it
// out, and the run warns that runs_dir holds something else.
func TestPruningKeepsADirectoryNamedLikeARun(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, step{}, step{})
	evil := filepath.Join(w.dir, ".rooda", "runs", "20240101T000000Z-evil-abcd")
	if err := os.MkdirAll(evil, 0o755); err != nil {
		t.Fatal(err)
	}
	w.write(".rooda/runs/20240101T000000Z-evil-abcd/run.json", "{}")
	w.write(".rooda/runs/20240101T000000Z-evil-abcd/important.txt", "keep me\n")
	w.env = append(w.env, "ROODA_LOOP_KEEP_RUNS=1")
	w.run("build", "-n", "1").expect(t, 2, "WARN: runs_dir .rooda/runs holds files that are not rooda runs (20240101T000000Z-evil-abcd)")
	w.run("build", "-n", "1").expect(t, 2)
	if data, err := os.ReadFile(filepath.Join(evil, "important.txt")); err != nil || string(data) != "keep me\n" {
		t.Errorf("important.txt: %q, %v", data, err)
	}
	o := w.rooda("runs", "list")
	if strings.Contains(o.stdout, "evil") || strings.Count(o.stdout, "-build-") != 1 {
		t.Errorf("list, want the newest run only:\n%s%s", o.stdout, o.stderr)
	}
}

// TestDotFilesInRunsDir: .DS_Store and an editor's swap file in
// .rooda/runs are no one's runs and no reason to warn: the first run
// writes the .gitignore and says nothing of them.
func TestDotFilesInRunsDir(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, step{})
	if err := os.MkdirAll(filepath.Join(w.dir, ".rooda", "runs"), 0o755); err != nil {
		t.Fatal(err)
	}
	w.write(".rooda/runs/.DS_Store", "finder")
	w.write(".rooda/runs/.notes.txt.swp", "vim")
	o := w.run("build", "-n", "1")
	o.expect(t, 2)
	if strings.Contains(o.stderr, "not rooda runs") {
		t.Errorf("warned of dot-files:\n%s", o.stderr)
	}
	if data, err := os.ReadFile(filepath.Join(w.dir, ".rooda", "runs", ".gitignore")); string(data) != "*\n" {
		t.Errorf(".gitignore: %q, %v", data, err)
	}
}

// TestReusedPidShowsCrashed: a record left running by a pid that now
// belongs to another process (here the test's own, alive, but started at
// another time than the record says) is shown crashed, not running.
func TestReusedPidShowsCrashed(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		t.Skip("process start times are read from /proc")
	}
	w := newWorkspace(t, step{})
	w.run("build", "-n", "1").expect(t, 2)
	id := runIDs(t, w)[0]
	w.rewriteRun(id, func(run map[string]any) {
		start, ok := run["pid_start"].(float64)
		if !ok || start <= 0 {
			t.Errorf("run.json has no pid_start: %v", run)
		}
		leftRunning(os.Getpid())(run)
		run["pid_start"] = 1 // no process of the test's started a tick after boot
	})
	if o := w.rooda("runs", "list"); !strings.Contains(o.stdout, "\tcrashed\t") {
		t.Errorf("list:\n%s%s", o.stdout, o.stderr)
	}
	if o := w.rooda("runs", "show", "last"); !strings.Contains(o.stdout, "\nStatus: crashed (") {
		t.Errorf("show:\n%s%s", o.stdout, o.stderr)
	}
}

// TestShowJSONSaysCrashed: runs show --json prints the record as it is,
// status "running" for a run whose rooda is gone, and beside it
// shown_status, what list and show say: "crashed"; for a run that ended
// the two agree.
func TestShowJSONSaysCrashed(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, step{"output": successSignal})
	w.run("build", "-n", "1").expect(t, 0)
	var run struct {
		Status      string `json:"status"`
		ShownStatus string `json:"shown_status"`
		ID          string `json:"id"`
	}
	o := w.rooda("runs", "show", "last", "--json")
	if err := json.Unmarshal([]byte(o.stdout), &run); err != nil || run.Status != "success" || run.ShownStatus != "success" {
		t.Errorf("a finished run: %+v, %v\n%s%s", run, err, o.stdout, o.stderr)
	}
	id := runIDs(t, w)[0]
	w.rewriteRun(id, leftRunning(deadPid(t)))
	run.ShownStatus = ""
	o = w.rooda("runs", "show", "last", "--json")
	if err := json.Unmarshal([]byte(o.stdout), &run); err != nil || run.Status != "running" || run.ShownStatus != "crashed" || run.ID != id {
		t.Errorf("a crashed run: %+v, %v\n%s%s", run, err, o.stdout, o.stderr)
	}
}
