package runlog

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
	g := NewGit()
	g.Before()
	os.WriteFile("f1.txt", []byte("one"), 0o644)
	gitRun(t, "add", "f1.txt")
	gitRun(t, "commit", "--quiet", "-m", "first")
	if before, now, changed := g.After(); before != "" || len(now) != 40 || strings.Join(changed, ",") != "f1.txt" {
		t.Errorf("first commit: HEAD %q → %q, changed %v", before, now, changed)
	}
	os.WriteFile("f1.txt", []byte("edited before"), 0o644)
	os.WriteFile("new.txt", []byte("untracked"), 0o644)
	g.Before()
	os.WriteFile("f2.txt", []byte("two"), 0o644)
	os.WriteFile("new.txt", []byte("untracked, edited"), 0o644)
	if _, _, changed := g.After(); strings.Join(changed, ",") != "f2.txt,new.txt" {
		t.Errorf("second iteration: %v", changed)
	}
}
