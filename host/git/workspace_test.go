package git

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

func gitRun(t *testing.T, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.org"}, args...)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// TestFilesChanged: only what an iteration changed counts — in a
// repository without a commit, committed or not, tracked or untracked —
// and not what was changed before it. Without a commit, HEAD is nothing,
// not git's complaint.
func TestFilesChanged(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	t.Chdir(t.TempDir())
	gitRun(t, "init", "--quiet")
	g := NewWorkspaceIn("")
	g.Before()
	os.WriteFile("f1.txt", []byte("one"), 0o644)
	gitRun(t, "add", "f1.txt")
	gitRun(t, "commit", "--quiet", "-m", "first")
	if c := g.After(); c.HeadBefore != "" || len(c.HeadAfter) != 40 || strings.Join(c.Files, ",") != "f1.txt" || !c.Changed() {
		t.Errorf("first commit: %+v", c)
	}
	os.WriteFile("f1.txt", []byte("edited before"), 0o644)
	os.WriteFile("new.txt", []byte("untracked"), 0o644)
	g.Before()
	os.WriteFile("f2.txt", []byte("two"), 0o644)
	os.WriteFile("new.txt", []byte("untracked, edited"), 0o644)
	if c := g.After(); strings.Join(c.Files, ",") != "f2.txt,new.txt" || !c.Changed() {
		t.Errorf("second iteration: %+v", c)
	}
	g.Before()
	if c := g.After(); c.Changed() || len(c.Files) != 0 || c.HeadBefore != c.HeadAfter {
		t.Errorf("an iteration that changed nothing: %+v", c)
	}
}

// TestOutsideARepository: nothing is known, so nothing changed.
func TestOutsideARepository(t *testing.T) {
	t.Chdir(t.TempDir())
	g := NewWorkspaceIn("")
	g.Before()
	os.WriteFile("f.txt", []byte("x"), 0o644)
	if c := g.After(); c.InRepo || c.Changed() {
		t.Errorf("outside a repository: %+v", c)
	}
}
