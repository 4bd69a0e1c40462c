package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// TestPruningKeepsWhatIsNotARun: with the workspace itself as runs_dir
// and one run kept, pruning removes the older run and nothing else — not
// docs/ nor any other directory — writes no .gitignore there, and says
// once that the directory holds things that are not runs.
func TestPruningKeepsWhatIsNotARun(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, step{})
	for _, d := range []string{"docs", "src", "zzz"} {
		if err := os.Mkdir(filepath.Join(w.dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	w.write("docs/guide.md", "# keep me\n")
	w.env = append(w.env, "ROODA_LOOP_RUNS_DIR=.", "ROODA_LOOP_KEEP_RUNS=1")
	first := w.run("build", "-n", "1")
	first.expect(t, 2, "WARN: runs_dir . holds files that are not rooda runs")
	if n := strings.Count(first.stderr, "not rooda runs"); n != 1 {
		t.Errorf("the warning is given %d times, want once:\n%s", n, first.stderr)
	}
	w.run("build", "-n", "1").expect(t, 2)
	if data, err := os.ReadFile(filepath.Join(w.dir, "docs", "guide.md")); err != nil || string(data) != "# keep me\n" {
		t.Errorf("docs/guide.md: %q, %v", data, err)
	}
	for _, d := range []string{"src", "zzz"} {
		if _, err := os.Stat(filepath.Join(w.dir, d)); err != nil {
			t.Errorf("%s: %v", d, err)
		}
	}
	if _, err := os.Stat(filepath.Join(w.dir, ".gitignore")); !os.IsNotExist(err) {
		t.Errorf("a .gitignore was written into the workspace: %v", err)
	}
	var runs []string
	entries, _ := os.ReadDir(w.dir)
	for _, e := range entries {
		if _, err := os.Stat(filepath.Join(w.dir, e.Name(), "run.json")); err == nil {
			runs = append(runs, e.Name())
		}
	}
	if len(runs) != 1 {
		t.Errorf("runs kept: %v, want the newest only", runs)
	}
}

// TestKilledRunShowsCrashed: a run whose rooda was killed outright keeps
// a record that says running; list and show tell it crashed.
func TestKilledRunShowsCrashed(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, step{"delay": "30s"})
	s := w.start(w.command("build"))
	w.waitForPids(1)
	s.cmd.Process.Kill()
	w.wait(s)
	data := readText(t, filepath.Join(w.dir, "pids"))
	for _, field := range strings.Fields(data) {
		if pid, err := strconv.Atoi(field); err == nil {
			syscall.Kill(-pid, syscall.SIGKILL) // the agent leads its group
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
	if o := w.rooda("runs", "list"); !strings.Contains(o.stdout, "-build-") || !strings.Contains(o.stdout, "\tcrashed\t") {
		t.Errorf("list:\n%s%s", o.stdout, o.stderr)
	}
	o := w.rooda("runs", "show", "last")
	if !strings.Contains(o.stdout, "\nStatus: crashed (") || strings.Contains(o.stdout, "Status: running") {
		t.Errorf("show:\n%s%s", o.stdout, o.stderr)
	}
}

// TestCorruptRecords: a garbage run.json is an error naming the file; a
// garbage meta.json still shows the iteration's prompt and output and
// says the meta is unreadable; "last" skips directories that are not
// runs.
func TestCorruptRecords(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, step{"output": "done\n"})
	w.run("build", "-n", "1").expect(t, 2)
	runs := filepath.Join(w.dir, ".rooda", "runs")
	ids := runIDs(t, w)
	if len(ids) != 1 {
		t.Fatalf("runs: %v", ids)
	}
	id := ids[0]

	// A directory sorting after every run, that is not one.
	if err := os.MkdirAll(filepath.Join(runs, "zz-notes"), 0o755); err != nil {
		t.Fatal(err)
	}
	if o := w.rooda("runs", "show", "last"); o.code != 0 || !strings.Contains(o.stdout, "Run: "+id+"\n") {
		t.Errorf("show last with a stray directory: exit %d\n%s%s", o.code, o.stdout, o.stderr)
	}
	if o := w.rooda("runs", "list"); strings.Contains(o.stdout, "zz-notes") {
		t.Errorf("list shows a directory that is not a run:\n%s", o.stdout)
	}

	meta := filepath.Join(runs, id, "iterations", "0001", "meta.json")
	if err := os.WriteFile(meta, []byte("{garbage"), 0o644); err != nil {
		t.Fatal(err)
	}
	o := w.rooda("runs", "show", "last", "--iteration", "1")
	relMeta := filepath.Join(".rooda", "runs", id, "iterations", "0001", "meta.json")
	if o.code != 0 || !strings.Contains(o.stdout, "Iteration: 1\n") || !strings.Contains(o.stdout, "Meta: unreadable: "+relMeta+":1: invalid JSON") ||
		!strings.Contains(o.stdout, "\nOutput: 5 bytes\n") {
		t.Errorf("show an iteration with a garbage meta.json: exit %d\n%s%s", o.code, o.stdout, o.stderr)
	}
	if o := w.rooda("runs", "show", "last", "--iteration", "1", "--output"); o.stdout != "done\n" {
		t.Errorf("output of an iteration with a garbage meta.json: %q %s", o.stdout, o.stderr)
	}

	if err := os.WriteFile(filepath.Join(runs, id, "run.json"), []byte("not json\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	o = w.rooda("runs", "show", "last")
	want := "Error: " + filepath.Join(".rooda", "runs", id, "run.json") + ":1: invalid JSON: "
	if o.code != 1 || !strings.HasPrefix(o.stderr, want) {
		t.Errorf("show a garbage run.json: exit %d, stderr %q, want it to begin %q", o.code, o.stderr, want)
	}
}

// TestGitWithoutCommits: in a repository with no commit yet, git's
// errors are recorded as nothing, not as HEAD.
func TestGitWithoutCommits(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	w := newWorkspace(t, step{"write": "made.txt"})
	w.write(".gitignore", "prompt-*.txt\nenv-*.txt\npids\nscript.json\nno-global/\n")
	w.env = append(w.env, "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.org", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.org")
	init := exec.Command("git", "init", "--quiet")
	init.Dir, init.Env = w.dir, w.env
	if out, err := init.CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	w.run("build", "-n", "1").expect(t, 2)
	id := runIDs(t, w)[0]
	meta, err := os.ReadFile(filepath.Join(w.dir, ".rooda", "runs", id, "iterations", "0001", "meta.json"))
	if err != nil || strings.Contains(string(meta), "fatal") || strings.Contains(string(meta), "git_head") {
		t.Errorf("meta.json (%v):\n%s", err, meta)
	}
	o := w.rooda("runs", "show", "last", "--iteration", "1")
	if strings.Contains(o.stdout, "fatal") || !strings.Contains(o.stdout, "Git HEAD: (no commits) → (no commits)\n") ||
		!strings.Contains(o.stdout, "Files changed: made.txt\n") {
		t.Errorf("show:\n%s%s", o.stdout, o.stderr)
	}
}
