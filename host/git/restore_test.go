package git

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestRestoreToTheStart: a killed iteration's edits, commit, new files
// and deletions are undone, kept first under the partial ref; ignored
// files and rooda's records stay, and the untracked file of the start is
// untracked again.
func TestRestoreToTheStart(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	t.Chdir(t.TempDir())
	gitRun(t, "init", "--quiet", "-b", "main")
	writeFile(t, ".gitignore", "*.log\n")
	writeFile(t, "a.txt", "a\n")
	writeFile(t, "gone.txt", "kept\n")
	gitRun(t, "add", ".")
	gitRun(t, "commit", "--quiet", "-m", "first")
	writeFile(t, "progress.txt", "1\n") // untracked at the start
	writeFile(t, "a.txt", "a, edited before\n")
	if _, ok, err := Snapshot("", "refs/rooda/r/start/1", "start"); !ok || err != nil {
		t.Fatalf("snapshot: %v %v", ok, err)
	}
	// The killed try.
	writeFile(t, "progress.txt", "1\n2\n")
	writeFile(t, "sub/new.txt", "new\n")
	writeFile(t, "ignored.log", "mine\n")
	writeFile(t, ".rooda/runs/x", "record\n")
	os.Remove("gone.txt")
	gitRun(t, "add", "-A")
	gitRun(t, "commit", "--quiet", "-m", "killed try")
	writeFile(t, "a.txt", "a, edited by the killed try\n")

	if err := Restore("", "refs/rooda/r/start/1", "refs/rooda/r/partial/1"); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"progress.txt": "1\n", "a.txt": "a, edited before\n", "gone.txt": "kept\n", "ignored.log": "mine\n", ".rooda/runs/x": "record\n"} {
		if got, _ := os.ReadFile(name); string(got) != want {
			t.Errorf("%s: %q, want %q", name, got, want)
		}
	}
	if _, err := os.Stat("sub"); !os.IsNotExist(err) {
		t.Errorf("the killed try's directory stayed: %v", err)
	}
	if out, _ := Output("", "status", "--porcelain"); out != "M a.txt\n?? .rooda/\n?? progress.txt" {
		t.Errorf("status: %q", out)
	}
	if out, _ := Output("", "log", "--format=%s", "main"); out != "first" {
		t.Errorf("HEAD not put back: %q", out)
	}
	if out, _ := Output("", "show", "refs/rooda/r/partial/1:progress.txt"); out != "1\n2" {
		t.Errorf("the partial ref: %q", out)
	}
}

// TestRestoreRefusesAnotherBranch: a checkout on another branch than the
// start's, or on one of its name made again, is left as it is.
func TestRestoreRefusesAnotherBranch(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	t.Chdir(t.TempDir())
	gitRun(t, "init", "--quiet", "-b", "main")
	writeFile(t, "a.txt", "a\n")
	gitRun(t, "add", ".")
	gitRun(t, "commit", "--quiet", "-m", "first")
	Snapshot("", "refs/rooda/r/start/1", "start")
	gitRun(t, "checkout", "--quiet", "-b", "other")
	writeFile(t, "a.txt", "b\n")
	if err := Restore("", "refs/rooda/r/start/1", "refs/rooda/r/partial/1"); err == nil || !strings.Contains(err.Error(), `"other"`) {
		t.Errorf("err %v", err)
	}
	if got, _ := os.ReadFile("a.txt"); string(got) != "b\n" {
		t.Errorf("changed: %q", got)
	}
	// main made again from another commit: the same name, not the same
	// branch.
	gitRun(t, "checkout", "--quiet", "--orphan", "fresh")
	gitRun(t, "-c", "user.name=t", "-c", "user.email=t@example.org", "commit", "--quiet", "-m", "fresh")
	gitRun(t, "branch", "-M", "fresh", "main")
	if err := Restore("", "refs/rooda/r/start/1", "refs/rooda/r/partial/1"); err == nil || !strings.Contains(err.Error(), "no longer holds") {
		t.Errorf("a branch made again: %v", err)
	}
	if err := Restore("", "refs/rooda/r/start/2", "refs/rooda/r/partial/2"); err != ErrNoStart {
		t.Errorf("no start: %v", err)
	}
}

func writeFile(t *testing.T, name, text string) {
	t.Helper()
	os.MkdirAll(filepath.Dir(name), 0o755)
	if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// BenchmarkSnapshot: what noting an iteration's start costs
// (docs/performance.md): in ROODA_BENCH_REPO when it names a committed
// repository (BenchmarkWorkspace's), else in one of three files and an
// untracked one.
func BenchmarkSnapshot(b *testing.B) {
	if _, err := exec.LookPath("git"); err != nil {
		b.Skip("git is not installed")
	}
	dir := os.Getenv("ROODA_BENCH_REPO")
	if dir == "" {
		dir = b.TempDir()
		benchGit(b, dir, "init", "--quiet")
		for _, f := range []string{"a.txt", "b.txt", "c.txt"} {
			must(b, os.WriteFile(filepath.Join(dir, f), []byte(f), 0o644))
		}
		benchGit(b, dir, "add", "-A")
		benchGit(b, dir, "commit", "--quiet", "-m", "first")
		must(b, os.WriteFile(filepath.Join(dir, "untracked.txt"), []byte("u"), 0o644))
	}
	defer benchGit(b, dir, "update-ref", "-d", "refs/rooda/bench/start/1")
	for b.Loop() {
		if _, _, err := Snapshot(dir, "refs/rooda/bench/start/1", "start"); err != nil {
			b.Fatal(err)
		}
	}
}
