package worktree

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// repo makes a git repository with one commit and returns its top level.
func repo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	dir, _ = filepath.EvalSymlinks(dir)
	gitIn(t, dir, "init", "-q", "-b", "main")
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a\n"), 0o644)
	gitIn(t, dir, "add", ".")
	gitIn(t, dir, "commit", "-q", "-m", "first")
	return dir
}

func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

func commitIn(t *testing.T, dir, file, content string) {
	t.Helper()
	os.WriteFile(filepath.Join(dir, file), []byte(content), 0o644)
	gitIn(t, dir, "add", ".")
	gitIn(t, dir, "commit", "-q", "-m", "change "+file)
}

// TestAddMergeClose: a worktree on its own branch; its commit merges into
// the main checkout; a conflicting one is aborted and named; Close
// leaves no worktree and no branch but the kept one.
func TestAddMergeClose(t *testing.T) {
	ctx := context.Background()
	dir := repo(t)
	s, err := NewSet(ctx, dir, "run1")
	if err != nil {
		t.Fatal(err)
	}
	a, err := s.Add(ctx, "a", "", "HEAD", false)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(dir, Root, "run1", "a"); a.Path != want || a.Branch != "rooda/run1/a" {
		t.Fatalf("worktree %+v, want path %s", a, want)
	}
	if _, err := s.Add(ctx, "a", "", "HEAD", false); err == nil {
		t.Error("a second worktree named a was made")
	}
	for _, name := range []string{"../x", "../../x", "/", ".", "..", "", "x/y", "-D"} {
		if _, err := s.Add(ctx, name, "", "HEAD", false); err == nil {
			t.Errorf("a worktree named %q was made", name)
		}
	}
	// A branch of the user's is never one rooda makes, so never one it deletes.
	if _, err := s.Add(ctx, "on-main", "main", "HEAD", false); err == nil {
		t.Error("a worktree on the existing branch main was made")
	}
	if _, err := s.Add(ctx, "opt", "", "--lock", false); err == nil {
		t.Error("a base of --lock was taken as git's option")
	}
	b, _ := s.Add(ctx, "b", "", "HEAD", false)
	kept, _ := s.Add(ctx, "kept", "mine", "HEAD", true)
	commitIn(t, a.Path, "new.txt", "from a\n")
	commitIn(t, b.Path, "a.txt", "b's a\n")
	commitIn(t, dir, "a.txt", "main's a\n")

	if res, err := Merge(ctx, dir, a.Branch); err != nil || !res.Merged {
		t.Fatalf("merge of a: %+v, %v", res, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "new.txt")); err != nil {
		t.Errorf("a's file is not on main: %v", err)
	}
	res, err := Merge(ctx, dir, b.Branch)
	if err != nil || res.Merged || !slices.Equal(res.Conflicts, []string{"a.txt"}) {
		t.Fatalf("merge of b: %+v, %v; want a conflict in a.txt", res, err)
	}
	if st := gitIn(t, dir, "status", "--porcelain"); st != "" {
		t.Errorf("the conflicting merge was not aborted:\n%s", st)
	}
	if err := s.Close(ctx); err != nil {
		t.Fatal(err)
	}
	for _, gone := range []string{a.Path, b.Path} {
		if _, err := os.Stat(gone); !os.IsNotExist(err) {
			t.Errorf("%s is left", gone)
		}
	}
	if _, err := os.Stat(kept.Path); err != nil {
		t.Errorf("the kept worktree is gone: %v", err)
	}
	if branches := gitIn(t, dir, "branch", "--list", "rooda/*"); branches != "" {
		t.Errorf("branches left: %s", branches)
	}
	if gitIn(t, dir, "branch", "--list", "mine") == "" {
		t.Error("the kept branch is gone")
	}
	if gitIn(t, dir, "branch", "--list", "main") == "" {
		t.Error("the user's branch main is gone")
	}
	// A later run, this one ended, leaves the kept worktree alone.
	if _, err := os.Stat(filepath.Join(dir, Root, "run1", ownerFile)); err == nil {
		ownedByDead(t, filepath.Join(dir, Root, "run1"))
	}
	if ids, err := PruneDead(ctx, dir); err != nil || len(ids) != 0 {
		t.Errorf("PruneDead after the run = %v, %v; want nothing pruned", ids, err)
	}
	if _, err := os.Stat(kept.Path); err != nil {
		t.Errorf("a later run removed the kept worktree: %v", err)
	}
	if gitIn(t, dir, "branch", "--list", "mine") == "" {
		t.Error("a later run deleted the kept branch")
	}
}

// TestPruneDead: the worktrees of a run whose process is gone are
// removed with their branches; a live run's and what is outside the
// dead run's directory stay.
func TestPruneDead(t *testing.T) {
	ctx := context.Background()
	dir := repo(t)
	dead, _ := NewSet(ctx, dir, "dead")
	wt, err := dead.Add(ctx, "a", "", "HEAD", false)
	if err != nil {
		t.Fatal(err)
	}
	ownedByDead(t, filepath.Join(dir, Root, "dead"))
	live, _ := NewSet(ctx, dir, "live")
	liveTree, _ := live.Add(ctx, "a", "", "HEAD", false)
	os.WriteFile(filepath.Join(dir, Root, "note.txt"), []byte("mine"), 0o644)

	ids, err := PruneDead(ctx, dir)
	if err != nil || !slices.Equal(ids, []string{"dead"}) {
		t.Fatalf("PruneDead = %v, %v; want [dead]", ids, err)
	}
	if _, err := os.Stat(wt.Path); !os.IsNotExist(err) {
		t.Errorf("the dead run's worktree is left")
	}
	if _, err := os.Stat(liveTree.Path); err != nil {
		t.Errorf("the live run's worktree is gone: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, Root, "note.txt")); err != nil {
		t.Errorf("a file outside the dead run's directory is gone: %v", err)
	}
	if b := gitIn(t, dir, "branch", "--list", "rooda/dead/*"); b != "" {
		t.Errorf("the dead run's branch is left: %s", b)
	}
	if b := gitIn(t, dir, "branch", "--list", "rooda/live/*"); b == "" {
		t.Error("the live run's branch is gone")
	}
	if list := gitIn(t, dir, "worktree", "list"); strings.Contains(list, "dead") {
		t.Errorf("git still knows the dead worktree:\n%s", list)
	}
}

// ownedByDead marks a run's directory as made by a process that has ended.
func ownedByDead(t *testing.T, runDir string) {
	t.Helper()
	cmd := exec.Command("true")
	cmd.Run()
	data, _ := json.Marshal(owner{PID: cmd.Process.Pid})
	if err := os.WriteFile(filepath.Join(runDir, ownerFile), data, 0o644); err != nil {
		t.Fatal(err)
	}
}
