package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// newProgressRun is a git workspace whose agent appends a line to
// progress.txt and commits it, each iteration; the first try of
// iteration 2 then pauses for pause, long enough to be killed in.
func newProgressRun(t *testing.T, pause string) *workspace {
	work := `echo "iteration $ROODA_ITERATION" >> progress.txt && git add progress.txt && git commit -qm "iteration $ROODA_ITERATION" && echo "note $ROODA_ITERATION" > notes-$ROODA_ITERATION.txt`
	again := step{"shell": work, "output": "working\n"}
	first := step{"shell": work, "output": "working\n", "delay": pause, "again": again}
	w := newWorkspace(t, again, first, again)
	w.env = append(w.env, "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.org", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.org")
	w.gitInit()
	w.write(".gitignore", "prompt-*.txt\nenv-*.txt\npids\nscript.json\nno-global/\nruns-*\n.rooda/\n")
	return w
}

// files are what a progress run leaves: progress.txt, the commits, and
// git's status of the working tree.
func (w *workspace) files() string {
	w.t.Helper()
	progress, _ := os.ReadFile(filepath.Join(w.dir, "progress.txt"))
	var out []string
	for _, args := range [][]string{{"log", "--format=%s"}, {"status", "--porcelain", "--untracked-files=all"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = w.dir
		b, err := cmd.Output()
		if err != nil {
			w.t.Fatalf("git %v: %v", args, err)
		}
		out = append(out, string(b))
	}
	return string(progress) + "--\n" + strings.Join(out, "--\n")
}

// TestResumeRestoresTheWorkspace: an agent killed in iteration 2 after it
// appended its line and committed it: the resume keeps what the killed
// try left under refs/rooda/<run>/partial/<n>, named in the log, then
// runs iteration 2 again from the workspace as it was when it began, so
// that the files end as an uninterrupted run leaves them (3 lines, not 4).
func TestResumeRestoresTheWorkspace(t *testing.T) {
	t.Parallel()
	whole := newProgressRun(t, "10ms")
	whole.run("build", "-n", "3").expect(t, 2)
	want := whole.files()
	if refs := whole.refs(); refs != "" {
		t.Errorf("an uninterrupted run left refs: %s", refs)
	}
	// Its starts' directories, kept from one iteration to the next, go
	// as it ends: git lists no empty directory, but keeps walking them.
	if dirs, _ := os.ReadDir(filepath.Join(whole.dir, ".git", "refs", "rooda")); len(dirs) != 0 {
		t.Errorf("an uninterrupted run left directories of refs: %v", dirs)
	}

	w := killedProgressRun(t)
	o := w.roodaIn(w.dir, "runs", "resume")
	o.expect(t, 2)
	if got := w.files(); got != want {
		t.Errorf("the resumed run left\n%s\nan uninterrupted run leaves\n%s\nresume:\n%s", got, want, o.stderr)
	}
	// Only the iteration put back keeps its start, beside its partial.
	refs := strings.Fields(w.refs())
	var ref string
	for _, r := range refs {
		if strings.Contains(r, "/partial/") {
			ref = r
		}
	}
	if len(refs) != 2 || refs[1] != strings.Replace(ref, "/partial/", "/start/", 1) {
		t.Errorf("refs left: %v", refs)
	}
	if !strings.HasSuffix(ref, "/partial/2") || !strings.Contains(o.stderr, "kept in "+ref) {
		t.Fatalf("the partial ref %q, not named in the log:\n%s", ref, o.stderr)
	}
	metas, _ := filepath.Glob(filepath.Join(w.dir, ".rooda", "runs", "*", "iterations", "0002", "meta.json"))
	if len(metas) != 1 || !strings.Contains(readText(t, metas[0]), `"partial_ref": "`+ref+`"`) {
		t.Errorf("iteration 2's meta.json does not name %s: %v", ref, metas)
	}
	cmd := exec.Command("git", "show", ref+":progress.txt")
	cmd.Dir = w.dir
	if kept, _ := cmd.Output(); string(kept) != "iteration 1\niteration 2\n" {
		t.Errorf("the partial ref holds %q", kept)
	}
}

// killedProgressRun is a progress run of 3 iterations killed (SIGKILL)
// once its agent of iteration 2 committed its line.
func killedProgressRun(t *testing.T) *workspace {
	w := newProgressRun(t, "30s")
	s := w.start(w.command("build", "-n", "3"))
	w.waitForLog(s, "Iteration 2/3 starting", "the run never reached iteration 2")
	waitFor(t, "the agent of iteration 2 never wrote its notes", func() bool {
		_, err := os.Stat(filepath.Join(w.dir, "notes-2.txt"))
		return err == nil
	})
	s.cmd.Process.Signal(syscall.SIGKILL)
	killedWait(t, s)
	(&repoWorkspace{workspace: w}).noSurvivorsQuietly()
	return w
}

// TestResumeAsLeft: --as-left keeps the behaviour of old for those who
// want it: the iteration in flight runs again on what its killed try
// left, so its line is there twice, and no partial ref is made.
func TestResumeAsLeft(t *testing.T) {
	t.Parallel()
	w := killedProgressRun(t)
	o := w.roodaIn(w.dir, "runs", "resume", "--as-left")
	o.expect(t, 2)
	progress := readText(t, filepath.Join(w.dir, "progress.txt"))
	if progress != "iteration 1\niteration 2\niteration 2\niteration 3\n" {
		t.Errorf("after a resume --as-left progress.txt holds\n%s\nresume:\n%s", progress, o.stderr)
	}
	if !strings.Contains(o.stderr, "Iteration 2: runs again on the workspace as its killed try left it (--as-left)") {
		t.Errorf("the resume does not say it left the workspace as it was:\n%s", o.stderr)
	}
	if refs := w.refs(); strings.Contains(refs, "/partial/") {
		t.Errorf("--as-left made a partial ref: %s", refs)
	}
}

// refs are rooda's refs in the workspace's repository, sorted.
func (w *workspace) refs() string {
	w.t.Helper()
	cmd := exec.Command("git", "for-each-ref", "--format=%(refname)", "refs/rooda/")
	cmd.Dir = w.dir
	out, err := cmd.Output()
	if err != nil {
		w.t.Fatal(err)
	}
	return strings.TrimSpace(string(out))
}
