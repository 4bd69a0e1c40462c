package git

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestLookRunsNothingOfTheRepository: a repository whose config runs a
// program (core.fsmonitor, a hook, a clean filter its attributes select)
// has rooda's look and rooda's commands run none of it.
func TestLookRunsNothingOfTheRepository(t *testing.T) {
	_, marks := committedRepo(t)
	g := NewWorkspaceIn("")
	defer g.Close()
	g.Before()
	mark := func(name string) string { return "sh -c 'echo ran >> " + filepath.Join(marks, name) + "'; true" }
	gitRun(t, "config", "core.fsmonitor", mark("fsmonitor"))
	mustT(t, os.WriteFile(filepath.Join(".git", "hooks", "pre-commit"), []byte("#!/bin/sh\n"+mark("hook")+"\n"), 0o755))
	mustT(t, os.WriteFile("a.txt", []byte("changed\n"), 0o644))
	if c := g.After(); len(c.Files) != 1 {
		t.Errorf("the change: %+v", c)
	}
	if _, ok := Output("", "commit", "-qam", "through rooda's git", "--author", "t <t@example.org>"); !ok {
		t.Error("rooda's git could not commit")
	}
	if found, _ := filepath.Glob(filepath.Join(marks, "*")); len(found) > 0 {
		t.Errorf("rooda's git ran the repository's programs: %v", found)
	}
}

// TestLookKeepsTheRecordedRepository: a .git file rewritten after the
// first look (gitdir: a repository of an agent's, whose config runs a
// program) is not followed: rooda's git stays on the repository it
// recorded.
func TestLookKeepsTheRecordedRepository(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir, marks := t.TempDir(), t.TempDir()
	t.Chdir(dir)
	gitRun(t, "init", "--quiet", "main")
	mustT(t, os.WriteFile("main/a.txt", []byte("a\n"), 0o644))
	gitRun(t, "-C", "main", "add", "a.txt")
	gitRun(t, "-C", "main", "commit", "--quiet", "-m", "a")
	gitRun(t, "-C", "main", "worktree", "add", "--quiet", "../wt")
	wt := filepath.Join(dir, "wt")
	g := NewWorkspaceIn(wt)
	defer g.Close()
	g.Before()
	// The agent's repository: a copy of the real one, its config running
	// a clean filter on every file.
	gitRun(t, "clone", "--quiet", "main", "evil")
	gitRun(t, "-C", "evil", "config", "filter.x.clean", "sh -c 'echo ran >> "+filepath.Join(marks, "clean")+"; cat'")
	gitRun(t, "-C", "evil", "config", "core.fsmonitor", "sh -c 'echo ran >> "+filepath.Join(marks, "fsmonitor")+"'; true")
	mustT(t, os.WriteFile(filepath.Join(dir, "evil", ".git", "info", "attributes"), []byte("* filter=x\n"), 0o644))
	mustT(t, os.WriteFile(filepath.Join(wt, ".git"), []byte("gitdir: "+filepath.Join(dir, "evil", ".git")+"\n"), 0o644))
	// Of the size it had: git reads it, through the filter, to compare.
	mustT(t, os.WriteFile(filepath.Join(wt, "a.txt"), []byte("b\n"), 0o644))
	if c := g.After(); len(c.Files) != 1 {
		t.Errorf("the change: %+v", c)
	}
	if found, _ := filepath.Glob(filepath.Join(marks, "*")); len(found) > 0 {
		t.Errorf("rooda's git followed the rewritten .git file: %v", found)
	}
}

// mustT fails the test on err.
func mustT(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestNoRepositoryStaysNone: a directory that was no repository when
// rooda first looked stays none to rooda once an agent runs git init
// there (its config would be the agent's), until rooda forgets it.
func TestNoRepositoryStaysNone(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	if _, ok := Recorded(dir); ok {
		t.Fatal("a temporary directory is a repository")
	}
	gitRun(t, "init", "--quiet", dir)
	if r, ok := Recorded(dir); ok {
		t.Errorf("the repository made after the first look is taken: %+v", r)
	}
	Forget(dir)
	if _, ok := Recorded(dir); !ok {
		t.Error("forgotten, the directory is still no repository")
	}
}

// TestFetchRunsNoExtCommand: a repository whose config allows ext::
// remotes and rewrites a URL to one (a library mirror an agent wrote)
// has rooda's fetch run no command.
func TestFetchRunsNoExtCommand(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir, marks := t.TempDir(), t.TempDir()
	gitRun(t, "init", "--quiet", "--bare", dir)
	gitRun(t, "-C", dir, "config", "protocol.ext.allow", "always")
	mark := filepath.Join(marks, "ran")
	gitRun(t, "-C", dir, "config", "url.ext::sh -c touch% "+mark+".insteadOf", "https://example.invalid/")
	Run(context.Background(), Command{Args: []string{"--git-dir", dir, "fetch", "--quiet", "https://example.invalid/lib.git"}})
	// The rest of the URL follows the command's last word: "ranlib.git".
	if found, _ := filepath.Glob(mark + "*"); len(found) > 0 {
		t.Errorf("rooda's fetch ran the ext:: remote's command: %v", found)
	}
}

// TestPlantedCommonDirIsNotFollowed: a commondir planted in a
// repository's own git directory (left by an agent of a rooda killed
// before it removed it), pointing at a copy whose config runs a clean
// filter on every file, is not followed by rooda's git.
func TestPlantedCommonDirIsNotFollowed(t *testing.T) {
	dir, marks := committedRepo(t)
	mustT(t, exec.Command("cp", "-r", ".git", "evil").Run())
	gitRun(t, "--git-dir", "evil", "config", "filter.x.clean", "sh -c 'echo ran >> "+filepath.Join(marks, "clean")+"; cat'")
	mustT(t, os.WriteFile(filepath.Join("evil", "info", "attributes"), []byte("* filter=x\n"), 0o644))
	mustT(t, os.WriteFile(filepath.Join(".git", "commondir"), []byte(filepath.Join(dir, "evil")+"\n"), 0o644))
	if r, ok := Recorded(""); !ok || r.CommonDir != r.GitDir {
		t.Errorf("recorded: %+v, %v", r, ok)
	}
	g := NewWorkspaceIn("")
	defer g.Close()
	g.Before()
	mustT(t, os.WriteFile("a.txt", []byte("b\n"), 0o644))
	if c := g.After(); len(c.Files) != 1 {
		t.Errorf("the change: %+v", c)
	}
	if found, _ := filepath.Glob(filepath.Join(marks, "*")); len(found) > 0 {
		t.Errorf("rooda's git followed the planted commondir: %v", found)
	}
}

// committedRepo is a repository with one commit, the working directory,
// and a directory for the marks of programs that must not run.
func committedRepo(t *testing.T) (dir, marks string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir, marks = t.TempDir(), t.TempDir()
	t.Chdir(dir)
	gitRun(t, "init", "--quiet")
	mustT(t, os.WriteFile("a.txt", []byte("a\n"), 0o644))
	gitRun(t, "add", "a.txt")
	gitRun(t, "commit", "--quiet", "-m", "a")
	return dir, marks
}
