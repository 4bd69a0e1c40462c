package worktree

import (
	"context"
	"encoding/json"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"rooda/host/process"
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
	closedKept, err := s.Close(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(closedKept) != 1 || closedKept[0] != kept {
		t.Errorf("Close kept %v, want the kept one", closedKept)
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
	if p, err := PruneDead(ctx, dir, nil); err != nil || len(p.Runs) != 0 {
		t.Errorf("PruneDead after the run = %+v, %v; want nothing pruned", p, err)
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

	p, err := PruneDead(ctx, dir, nil)
	if err != nil || !slices.Equal(p.Runs, []string{"dead"}) || p.Removed != 1 || len(p.Kept) != 0 {
		t.Fatalf("PruneDead = %+v, %v; want [dead], one removed", p, err)
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

// ownedByDead marks a run's directory as made by a process that has
// ended; the worktrees it names kept stay so.
func ownedByDead(t *testing.T, runDir string) {
	t.Helper()
	cmd := exec.Command("true")
	cmd.Run()
	o, _ := readOwner(runDir)
	data, _ := json.Marshal(owner{PID: cmd.Process.Pid, Keep: o.Keep})
	if err := os.WriteFile(filepath.Join(runDir, ownerFile), data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestPruneDeadKeepsWork: of a dead run, the worktrees kept, holding
// uncommitted changes or commits on no other branch stay with their
// branches, as does a branch of such commits without a worktree; those
// whose work is merged, or that hold none, go. A later run leaves what
// stayed alone.
func TestPruneDeadKeepsWork(t *testing.T) {
	ctx := context.Background()
	dir := repo(t)
	s, _ := NewSet(ctx, dir, "dead")
	add := func(name string, keep bool) *Worktree {
		wt, err := s.Add(ctx, name, "", "HEAD", keep)
		if err != nil {
			t.Fatal(err)
		}
		return wt
	}
	kept, dirty, committed, merged, clean := add("kept", true), add("dirty", false), add("committed", false), add("merged", false), add("clean", false)
	os.WriteFile(filepath.Join(dirty.Path, "draft.txt"), []byte("draft\n"), 0o644)
	commitIn(t, committed.Path, "c.txt", "c\n")
	commitIn(t, merged.Path, "m.txt", "m\n")
	gitIn(t, dir, "merge", "-q", merged.Branch)
	// Branches of the run without a worktree: one of a commit no other
	// branch holds, one of main's.
	gitIn(t, dir, "branch", "rooda/dead/orphan", gitIn(t, dir, "commit-tree", "HEAD^{tree}", "-p", "HEAD", "-m", "orphan"))
	gitIn(t, dir, "branch", "rooda/dead/stale", "main")
	ownedByDead(t, filepath.Join(dir, Root, "dead"))

	p, err := PruneDead(ctx, dir, nil)
	if err != nil || !slices.Equal(p.Runs, []string{"dead"}) || p.Removed != 2 {
		t.Fatalf("PruneDead = %+v, %v; want [dead], two removed", p, err)
	}
	why := map[string]string{}
	for _, k := range p.Kept {
		why[k.Branch] = k.Why
	}
	want := map[string]string{
		kept.Branch:         "it was made with keep = True",
		dirty.Branch:        "it holds uncommitted changes",
		committed.Branch:    "it holds commits on no other branch",
		"rooda/dead/orphan": "it holds commits on no other branch",
	}
	if !maps.Equal(why, want) {
		t.Errorf("kept %v, want %v", why, want)
	}
	for _, wt := range []*Worktree{kept, dirty, committed} {
		if _, err := os.Stat(wt.Path); err != nil {
			t.Errorf("%s is gone: %v", wt.Name, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dirty.Path, "draft.txt")); err != nil {
		t.Errorf("the uncommitted file is gone: %v", err)
	}
	for _, wt := range []*Worktree{merged, clean} {
		if _, err := os.Stat(wt.Path); !os.IsNotExist(err) {
			t.Errorf("%s, holding no work of its own, is left", wt.Name)
		}
	}
	branches := strings.Fields(gitIn(t, dir, "for-each-ref", "--format=%(refname:short)", "refs/heads/rooda/"))
	if wantBranches := []string{committed.Branch, dirty.Branch, kept.Branch, "rooda/dead/orphan"}; !slices.Equal(branches, wantBranches) {
		t.Errorf("branches %v, want %v", branches, wantBranches)
	}
	if again, err := PruneDead(ctx, dir, nil); err != nil || len(again.Runs) != 0 {
		t.Errorf("a later PruneDead = %+v, %v; want the kept ones left alone", again, err)
	}
}

// TestCutRunKeepsWorkOnItsOwnBranch: a run cut short keeps a worktree
// made on a branch of its own name whose commits no other branch holds:
// its branch goes with it, so it keeps nothing safe.
func TestCutRunKeepsWorkOnItsOwnBranch(t *testing.T) {
	ctx := context.Background()
	dir := repo(t)
	s, _ := NewSet(ctx, dir, "run1")
	named, err := s.Add(ctx, "named", "feature-x", "HEAD", false)
	if err != nil {
		t.Fatal(err)
	}
	commitIn(t, named.Path, "x.txt", "x\n")
	kept, err := s.Close(ctx, true)
	if err != nil || len(kept) != 1 || kept[0].Why != "it holds commits on no other branch" {
		t.Fatalf("Close(cut) kept %+v, %v; want the worktree on feature-x", kept, err)
	}
	if branches := gitIn(t, dir, "branch", "--list", "feature-x"); branches == "" {
		t.Error("the branch feature-x, holding the only copy of a commit, was deleted")
	}
}

// TestPruneDeadKeepsWorkOfAMovedRepository: after the repository moved
// (or a container mounted it elsewhere), git lists a dead run's worktrees
// under paths that are no more; one kept, with a file not committed, is
// still kept, not removed as a directory git does not know.
func TestPruneDeadKeepsWorkOfAMovedRepository(t *testing.T) {
	ctx := context.Background()
	dir := repo(t)
	s, _ := NewSet(ctx, dir, "dead")
	kept, err := s.Add(ctx, "kept", "", "HEAD", true)
	if err != nil {
		t.Fatal(err)
	}
	must(t, os.WriteFile(filepath.Join(kept.Path, "draft.txt"), []byte("draft\n"), 0o644))
	ownedByDead(t, filepath.Join(dir, Root, "dead"))
	moved := filepath.Join(filepath.Dir(dir), filepath.Base(dir)+"-moved")
	must(t, os.Rename(dir, moved))
	t.Cleanup(func() { os.RemoveAll(moved) })

	p, err := PruneDead(ctx, moved, nil)
	if p.Removed != 0 || len(p.Kept) != 1 {
		t.Errorf("PruneDead = %+v, %v; want the kept worktree kept", p, err)
	}
	if _, err := os.Stat(filepath.Join(moved, Root, "dead", "kept", "draft.txt")); err != nil {
		t.Errorf("the kept worktree's uncommitted file is gone: %v", err)
	}
}

// TestFailedMergeIsUndone: a merge whose commit fails (its signing
// program refuses), and one that runs past its time, leave the checkout as it was: nothing
// staged, no MERGE_HEAD, HEAD where it was; what the user had staged
// before a merge that refused to start stays staged.
func TestFailedMergeIsUndone(t *testing.T) {
	ctx := context.Background()
	dir := repo(t)
	s, _ := NewSet(ctx, dir, "run1")
	wt, _ := s.Add(ctx, "a", "", "HEAD", false)
	commitIn(t, wt.Path, "work.txt", "work\n")
	commitIn(t, dir, "main.txt", "main\n") // no fast-forward: a merge commit, signed
	gpg := filepath.Join(t.TempDir(), "gpg")
	must(t, os.WriteFile(gpg, []byte("#!/bin/sh\necho no merges today >&2\nexit 1\n"), 0o755))
	gitIn(t, dir, "config", "commit.gpgSign", "true")
	gitIn(t, dir, "config", "gpg.program", gpg)
	head := gitIn(t, dir, "rev-parse", "HEAD")

	res, err := Merge(ctx, dir, wt.Branch)
	if err == nil || res.Merged {
		t.Fatalf("Merge = %+v, %v; want the signing's refusal", res, err)
	}
	if status := gitIn(t, dir, "status", "--porcelain"); status != "" {
		t.Errorf("the checkout is left changed:\n%s", status)
	}
	if _, err := os.Stat(filepath.Join(dir, ".git", "MERGE_HEAD")); !os.IsNotExist(err) {
		t.Errorf("MERGE_HEAD is left: %v", err)
	}
	if now := gitIn(t, dir, "rev-parse", "HEAD"); now != head {
		t.Errorf("HEAD moved from %s to %s", head, now)
	}

	gitIn(t, dir, "config", "--unset", "commit.gpgSign")
	must(t, os.WriteFile(filepath.Join(dir, "mine.txt"), []byte("mine\n"), 0o644))
	gitIn(t, dir, "add", "mine.txt")
	if _, err := Merge(ctx, dir, wt.Branch); err == nil {
		t.Fatal("a merge over staged changes started")
	}
	if status := gitIn(t, dir, "status", "--porcelain"); status != "A  mine.txt" {
		t.Errorf("the user's staged file: %q, want it still staged", status)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestRemoveHintIsOneCommandLine: the removal a kept worktree's message
// gives runs as written when pasted into a shell, whatever its path.
func TestRemoveHintIsOneCommandLine(t *testing.T) {
	path, branch := "/tmp/my repo/$HOME's/.rooda/worktrees/x/a", "rooda/x/a"
	remove, del, ok := strings.Cut(RemoveHint(path, branch), " && ")
	if !ok {
		t.Fatalf("RemoveHint = %q", RemoveHint(path, branch))
	}
	for line, want := range map[string][]string{remove: {"git", "worktree", "remove", path}, del: {"git", "branch", "-D", branch}} {
		if argv, err := process.Split(line); err != nil || !slices.Equal(argv, want) {
			t.Errorf("%q splits into %q (%v), want %q", line, argv, err, want)
		}
	}
}

// TestCloseKeepsUncommittedWork: a run that ended removes a clean
// worktree but keeps one holding an untracked file, and one holding a
// change, saying why; a merge counts the commits it brought in, 0 when
// the checkout had them all, and says whether the worktree is dirty.
func TestCloseKeepsUncommittedWork(t *testing.T) {
	ctx := context.Background()
	dir := repo(t)
	s, err := NewSet(ctx, dir, "run1")
	if err != nil {
		t.Fatal(err)
	}
	trees := map[string]*Worktree{}
	for _, name := range []string{"clean", "untracked", "changed"} {
		if trees[name], err = s.Add(ctx, name, "", "HEAD", false); err != nil {
			t.Fatal(err)
		}
	}
	commitIn(t, trees["clean"].Path, "c.txt", "c\n")
	commitIn(t, trees["clean"].Path, "d.txt", "d\n")
	os.WriteFile(filepath.Join(trees["untracked"].Path, "out.txt"), []byte("x\n"), 0o644)
	os.WriteFile(filepath.Join(trees["changed"].Path, "a.txt"), []byte("changed\n"), 0o644)
	for name, want := range map[string]int{"clean": 2, "untracked": 0} {
		res, err := Merge(ctx, dir, trees[name].Branch)
		if err != nil || !res.Merged || res.Commits != want {
			t.Errorf("merge of %s: %+v, %v; want %d commits", name, res, err, want)
		}
	}
	if !Uncommitted(ctx, trees["untracked"].Path) || Uncommitted(ctx, trees["clean"].Path) {
		t.Error("Uncommitted tells an untracked file from a clean worktree wrongly")
	}
	kept, err := s.Close(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, k := range kept {
		names = append(names, k.Name)
		if k.Why != UncommittedWhy {
			t.Errorf("%s kept as %q", k.Name, k.Why)
		}
	}
	if slices.Sort(names); !slices.Equal(names, []string{"changed", "untracked"}) {
		t.Errorf("kept %v, want changed and untracked", names)
	}
	if _, err := os.Stat(trees["clean"].Path); !os.IsNotExist(err) {
		t.Errorf("the clean worktree is left: %v", err)
	}
}

// TestRestoreDropsStaleLocks: a worktree a killed run's agent was
// committing in, taken back as it is, has the locks its git left removed,
// and the next commit there goes through.
func TestRestoreDropsStaleLocks(t *testing.T) {
	ctx := context.Background()
	dir := repo(t)
	s, err := NewSet(ctx, dir, "run1")
	must(t, err)
	wt, err := s.Add(ctx, "a", "", "HEAD", false)
	must(t, err)
	gitDir := gitIn(t, wt.Path, "rev-parse", "--absolute-git-dir")
	for _, lock := range []string{filepath.Join(gitDir, "HEAD.lock"), filepath.Join(gitDir, "index.lock")} {
		must(t, os.WriteFile(lock, nil, 0o644))
	}
	resumed, _ := NewSet(ctx, dir, "run1")
	if _, how, err := resumed.Restore(ctx, *wt, "", false); err != nil || how != Reattached {
		t.Fatalf("restore: %v, %v", how, err)
	}
	commitIn(t, wt.Path, "b.txt", "b")
}
