package runlog

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"rooda/host/process"
)

// mkRun writes a finished run named id under dir.
func mkRun(t *testing.T, dir, id string) {
	t.Helper()
	writeRun(t, dir, id, Run{ID: id, Status: "success", Started: time.Now()})
}

// writeRun writes run as the run.json of directory name under dir.
func writeRun(t *testing.T, dir, name string, run Run) {
	t.Helper()
	if err := writeJSON(filepath.Join(dir, name, "run.json"), run); err != nil {
		t.Fatal(err)
	}
}

func mkdir(t *testing.T, path string) {
	t.Helper()
	if err := os.MkdirAll(path, 0o755); err != nil {
		t.Fatal(err)
	}
}

// TestIDsListOnlyRuns: a run is a directory named as newID names one,
// holding a run.json that names it and says when it started; a damaged
// run.json is listed too, to be shown as such; nothing else is listed,
// however it sorts.
func TestIDsListOnlyRuns(t *testing.T) {
	dir := t.TempDir()
	run := newID("build", time.Now())
	mkRun(t, dir, run)
	mkRun(t, dir, "20250101T000000Z-old-ab12") // an id from before microseconds
	mkRun(t, dir, "zz-notes")                  // run.json, but not a run's name
	mkdir(t, filepath.Join(dir, newID("starting", time.Now())))
	os.WriteFile(filepath.Join(dir, "20990101T000000Z-file-ab12"), nil, 0o644)
	writeRun(t, dir, "20240101T000000Z-empty-abcd", Run{})
	writeRun(t, dir, "20240101T000000Z-other-abcd", Run{ID: "20240101T000000Z-else-abcd", Started: time.Now()})
	writeRun(t, dir, "20240101T000000Z-unstarted-abcd", Run{ID: "20240101T000000Z-unstarted-abcd"})
	writeFile(filepath.Join(dir, "20240202T000000Z-damaged-abcd", "run.json"), []byte("{garbage"))
	ids, err := IDs(dir)
	if err != nil || strings.Join(ids, " ") != "20240202T000000Z-damaged-abcd 20250101T000000Z-old-ab12 "+run {
		t.Errorf("IDs: %v, %v", ids, err)
	}
}

// TestPruneRemovesOnlyProvenRuns: beyond keep, pruning removes the runs
// whose run.json names them, and neither a directory named like a run
// whose run.json does not, nor a damaged record, nor a run going on;
// what a pruning killed midway left goes too.
func TestPruneRemovesOnlyProvenRuns(t *testing.T) {
	dir := t.TempDir()
	kept := []string{"20240101T000000Z-empty-abcd", "20240101T000001Z-damaged-abcd", "20240101T000002Z-going-abcd", "20990101T000000Z-new-abcd"}
	writeRun(t, dir, kept[0], Run{})
	writeFile(filepath.Join(dir, kept[1], "run.json"), []byte("{garbage"))
	writeRun(t, dir, kept[2], Run{ID: kept[2], Status: "running", PID: os.Getpid(), PIDStart: process.StartTime(os.Getpid()), Started: time.Now()})
	mkRun(t, dir, "20240101T000003Z-old-abcd")
	mkRun(t, dir, kept[3])
	writeFile(filepath.Join(dir, prunedPrefix+"20240101T000004Z-left-abcd", "iterations", "0001", "output.txt"), []byte("left"))
	// A run a killed rooda was making, a while ago, goes; one being made
	// now by another rooda stays.
	stale := filepath.Join(dir, newPrefix+"20240101T000005Z-made-abcd-1")
	writeFile(filepath.Join(stale, "run.json"), []byte("{}"))
	if err := os.Chtimes(stale, time.Now().Add(-time.Hour), time.Now().Add(-time.Hour)); err != nil {
		t.Fatal(err)
	}
	fresh := newPrefix + "20990101T000001Z-making-abcd-2"
	writeFile(filepath.Join(dir, fresh, "run.json"), []byte("{}"))
	kept = append([]string{fresh}, kept...)
	runs, _, _ := survey(dir)
	prune(dir, runs, 1, "")
	entries, _ := os.ReadDir(dir)
	var left []string
	for _, e := range entries {
		left = append(left, e.Name())
	}
	if strings.Join(left, " ") != strings.Join(kept, " ") {
		t.Errorf("left %v, want %v", left, kept)
	}
}

// TestStartPrunesOnlyRuns: in a directory of the user's, Start removes
// the old runs beyond keep and nothing else, writes no .gitignore and
// warns; in its own directory it writes .gitignore and does not warn.
func TestStartPrunesOnlyRuns(t *testing.T) {
	t.Chdir(t.TempDir())
	mkRun(t, ".", "20250101T000000.000000Z-old-ab12")
	mkdir(t, "docs")
	os.WriteFile("docs/guide.md", []byte("keep"), 0o644)
	rec, err := Start(".", "build", nil, 1, "")
	if err != nil {
		t.Fatal(err)
	}
	settled(t, rec)
	if _, err := os.Stat("docs/guide.md"); err != nil {
		t.Errorf("docs pruned: %v", err)
	}
	if _, err := os.Stat("20250101T000000.000000Z-old-ab12"); !os.IsNotExist(err) {
		t.Errorf("the old run stayed: %v", err)
	}
	if _, err := os.Stat(".gitignore"); !os.IsNotExist(err) {
		t.Errorf(".gitignore written among the user's files: %v", err)
	}
	if want := "runs_dir . holds files that are not rooda runs (docs); only runs are pruned"; !strings.HasPrefix(rec.Warning(), want) {
		t.Errorf("warning %q, want it to begin %q", rec.Warning(), want)
	}

	rec, err = Start("runs", "build", nil, 1, "")
	if err != nil {
		t.Fatal(err)
	}
	settled(t, rec)
	if data, err := os.ReadFile("runs/.gitignore"); string(data) != "*\n" || rec.Warning() != "" {
		t.Errorf("rooda's own runs dir: .gitignore %q (%v), warning %q", data, err, rec.Warning())
	}
}

// TestReadRunNamesTheFile: a damaged run.json is an error naming it and
// the line.
func TestReadRunNamesTheFile(t *testing.T) {
	dir := t.TempDir()
	id := newID("build", time.Now())
	mkdir(t, filepath.Join(dir, id))
	os.WriteFile(filepath.Join(dir, id, "run.json"), []byte("{\n  \"id\": \"x\",\n  oops\n}\n"), 0o644)
	_, err := ReadRun(dir, id)
	if want := filepath.Join(dir, id, "run.json") + ":3: invalid JSON: "; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("error %v, want it to begin %q", err, want)
	}
}

// TestCrashed: a record left running by a process that is gone shows as
// crashed; one whose process lives, or that ended, does not.
func TestCrashed(t *testing.T) {
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Skip(err)
	}
	for _, tc := range []struct {
		run  Run
		want string
	}{
		{Run{Status: "running", PID: gone.Process.Pid}, "crashed"},
		{Run{Status: "running", PID: os.Getpid()}, "running"}, // no start time: the pid alone
		{Run{Status: "running", PID: os.Getpid(), PIDStart: process.StartTime(os.Getpid())}, "running"},
		{Run{Status: "success", PID: gone.Process.Pid}, "success"},
	} {
		if runtime.GOOS == "linux" && tc.run.PID == os.Getpid() {
			// The pid, reused: the process that has it started at another time.
			reused := tc.run
			reused.PIDStart = process.StartTime(os.Getpid()) + 1
			if got := reused.ShownStatus(); got != "crashed" {
				t.Errorf("%+v shows %q, want crashed", reused, got)
			}
		}
		if got := tc.run.ShownStatus(); got != tc.want {
			t.Errorf("%+v shows %q, want %q", tc.run, got, tc.want)
		}
	}
}

// TestIterationWithoutMeta: an iteration whose meta.json is damaged is
// still shown, with its prompt and output, and the damage named.
func TestIterationWithoutMeta(t *testing.T) {
	runDir := t.TempDir()
	writeFile(filepath.Join(iterationDir(runDir, 1), "prompt.txt"), []byte("abc"))
	writeFile(filepath.Join(iterationDir(runDir, 1), "output.txt"), []byte("done\n"))
	writeFile(filepath.Join(iterationDir(runDir, 1), "meta.json"), []byte("garbage"))
	var b strings.Builder
	if err := WriteIteration(&b, runDir, 1, false); err != nil {
		t.Fatal(err)
	}
	want := "Iteration: 1\nMeta: unreadable: " + filepath.Join(iterationDir(runDir, 1), "meta.json") + ":1: invalid JSON: "
	if !strings.HasPrefix(b.String(), want) || !strings.Contains(b.String(), "\nPrompt: 3 bytes, sha256 "+sha256Hex([]byte("abc"))+"\nOutput: 5 bytes\n") {
		t.Errorf("got:\n%s", b.String())
	}
	if err := WriteIteration(&b, runDir, 2, false); err == nil || err.Error() != "the run has no iteration 2" {
		t.Errorf("iteration 2: %v", err)
	}
}

// TestLostSaysWhichIterations: each removal of a run's record lost the
// files of the iterations since the removal before, up to the first
// iteration rooda still held.
func TestLostSaysWhichIterations(t *testing.T) {
	removals := []Removal{{KeptFrom: 1}, {KeptFrom: 2}, {KeptFrom: 5}, {KeptFrom: 5}}
	want := []string{"no iteration's files were lost", "iteration 1's files are lost", "the files of iterations 2-4 are lost", "no iteration's files were lost"}
	for i := range removals {
		if got := lost(removals, i); got != want[i] {
			t.Errorf("removal %d: %q, want %q", i, got, want[i])
		}
	}
}

// TestRecordWipedBeforeAWorktree: a record removed while the run goes
// on (an agent's git clean -fdx) is noticed at the next write, whatever
// writes first — here the making of a worktree: a warning, the removal
// recorded, the .gitignore written again.
func TestRecordWipedBeforeAWorktree(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "runs")
	r, err := Start(dir, "build", []string{"rooda", "build"}, 0, "")
	if err != nil {
		t.Fatal(err)
	}
	settled(t, r)
	var warned []string
	r.OnWarning(func(msg string) { warned = append(warned, msg) })
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	r.WorktreeMade("a", "/repo/.rooda/worktrees/x/a", "rooda/x/a")
	run, err := ReadRun(dir, r.ID())
	if err != nil || len(run.Removed) != 1 || len(warned) != 1 {
		t.Fatalf("after the wipe: removals %v (%v), warnings %q", run.Removed, err, warned)
	}
	if _, err := os.Stat(filepath.Join(dir, ".gitignore")); err != nil {
		t.Errorf("the runs' .gitignore was not written again: %v", err)
	}
}
