package git

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
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
	defer g.Close()
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

// newRepository makes a repository in a new working directory with one
// commit of files (name → content), and its Workspace.
func newRepository(t *testing.T, files map[string]string) *Workspace {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	t.Chdir(t.TempDir())
	gitRun(t, "init", "--quiet")
	for f, content := range files {
		write(t, f, content)
	}
	gitRun(t, "add", "-A")
	gitRun(t, "commit", "--quiet", "-m", "first")
	g := NewWorkspaceIn("")
	t.Cleanup(g.Close)
	return g
}

func write(t *testing.T, name, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// iteration runs Before, the agent's work, After.
func iteration(g *Workspace, work func()) Changes {
	g.Before()
	work()
	return g.After()
}

func expectFiles(t *testing.T, what string, c Changes, want ...string) {
	t.Helper()
	if !c.InRepo || strings.Join(c.Files, ",") != strings.Join(want, ",") {
		t.Errorf("%s: files %q (in a repository: %v), want %q", what, c.Files, c.InRepo, want)
	}
}

// TestCommittedOrNot: an agent's commit counts, of a file it changed and
// of one it made; so does a file dirty before that it changed again, not
// one dirty before that it left alone.
func TestCommittedOrNot(t *testing.T) {
	g := newRepository(t, map[string]string{"a.txt": "a", "b.txt": "b", "c.txt": "c"})
	iteration(g, func() {
		write(t, "b.txt", "b dirty")
		write(t, "c.txt", "c dirty")
	})
	c := iteration(g, func() {
		write(t, "a.txt", "a committed")
		write(t, "new.txt", "new, committed")
		gitRun(t, "add", "a.txt", "new.txt")
		gitRun(t, "commit", "--quiet", "-m", "second")
		write(t, "c.txt", "c dirty again")
	})
	expectFiles(t, "a commit, a file dirty before and changed, one left alone", c, "a.txt", "c.txt", "new.txt")
	if c.HeadBefore == c.HeadAfter || len(c.HeadAfter) != 40 {
		t.Errorf("HEAD %q, then %q: the commit moved it", c.HeadBefore, c.HeadAfter)
	}
	// Committing what was already there changes no content: HEAD moved.
	c = iteration(g, func() {
		gitRun(t, "commit", "--quiet", "-am", "third")
	})
	expectFiles(t, "a commit of files changed before", c)
	if !c.Changed() {
		t.Errorf("a commit is a change: %+v", c)
	}
}

// TestRevertedAndDeleted: a file put back as HEAD has it counts, and so
// does one deleted, tracked or not; the index alone changes no content:
// an untracked file added to it, a change staged and then taken back.
func TestRevertedAndDeleted(t *testing.T) {
	g := newRepository(t, map[string]string{"a.txt": "a", "b.txt": "b", "c.txt": "c"})
	iteration(g, func() {
		write(t, "a.txt", "a dirty")
		write(t, "untracked.txt", "u")
		write(t, "staged.txt", "s")
		write(t, "c.txt", "c staged")
		gitRun(t, "add", "c.txt")
		write(t, "c.txt", "c") // as HEAD has it; the index does not
	})
	c := iteration(g, func() {
		gitRun(t, "checkout", "--quiet", "--", "a.txt")
		if err := os.Remove("b.txt"); err != nil {
			t.Fatal(err)
		}
		if err := os.Remove("untracked.txt"); err != nil {
			t.Fatal(err)
		}
		gitRun(t, "add", "staged.txt")
		gitRun(t, "reset", "--quiet", "c.txt")
	})
	expectFiles(t, "a file reverted, two deleted, one staged", c, "a.txt", "b.txt", "untracked.txt")
}

// TestUntrackedDirectories: the files of a directory git does not track
// count one by one, and again when one changes in a later iteration;
// rooda's own records do not.
func TestUntrackedDirectories(t *testing.T) {
	g := newRepository(t, map[string]string{"a.txt": "a"})
	c := iteration(g, func() {
		write(t, "pkg/one.go", "1")
		write(t, "pkg/deep/two.go", "2")
		write(t, ".rooda/notes.txt", "rooda's")
	})
	expectFiles(t, "a new directory", c, "pkg/deep/two.go", "pkg/one.go")
	c = iteration(g, func() {
		write(t, "pkg/deep/two.go", "2, edited")
		write(t, ".rooda/notes.txt", "rooda's, edited")
	})
	expectFiles(t, "a file of an untracked directory edited", c, "pkg/deep/two.go")
}

// TestBetweenIterations: what changes between two iterations is neither's:
// an edit in a directory the last iteration made, a commit that touches
// no file of the working tree.
func TestBetweenIterations(t *testing.T) {
	g := newRepository(t, map[string]string{"a.txt": "a"})
	iteration(g, func() {})
	iteration(g, func() {
		write(t, "made/x.txt", "x")
		write(t, "a.txt", "a dirty")
	})
	write(t, "made/x.txt", "x, edited by the user")
	write(t, "made/new/y.txt", "y, by the user")
	c := iteration(g, func() {})
	expectFiles(t, "edits between iterations in a new directory", c)
	if c.Changed() {
		t.Errorf("an iteration that changed nothing: %+v", c)
	}
	gitRun(t, "commit", "--quiet", "-am", "the user's")
	c = iteration(g, func() {})
	if c.Changed() || c.HeadBefore != c.HeadAfter {
		t.Errorf("a commit between iterations counted: %+v", c)
	}
	c = iteration(g, func() {
		write(t, "made/x.txt", "x, by the agent")
		write(t, "made/new/y.txt", "y, by the user") // as it was
	})
	expectFiles(t, "a file edited before and again", c, "made/x.txt")
}

// TestDirectoriesMovedAndRemoved: a directory moved or removed whole
// moves or removes each of its files.
func TestDirectoriesMovedAndRemoved(t *testing.T) {
	g := newRepository(t, map[string]string{"lib/a.go": "a", "lib/b/c.go": "c", "doc/d.md": "d"})
	iteration(g, func() {})
	c := iteration(g, func() {
		if err := os.Rename("lib", "src"); err != nil {
			t.Fatal(err)
		}
	})
	expectFiles(t, "a directory moved", c, "lib/a.go", "lib/b/c.go", "src/a.go", "src/b/c.go")
	c = iteration(g, func() {
		if err := os.Rename("src", filepath.Join(t.TempDir(), "src")); err != nil {
			t.Fatal(err)
		}
	})
	expectFiles(t, "a directory moved out", c, "src/a.go", "src/b/c.go")
	c = iteration(g, func() {
		if err := os.RemoveAll("doc"); err != nil {
			t.Fatal(err)
		}
	})
	expectFiles(t, "a directory removed", c, "doc/d.md")
}

// TestHeadMovedBack: a commit undone, its changes kept in the index,
// changes no file's content; HEAD moved.
func TestHeadMovedBack(t *testing.T) {
	g := newRepository(t, map[string]string{"a.txt": "a"})
	c := iteration(g, func() {
		write(t, "a.txt", "a, committed")
		gitRun(t, "commit", "--quiet", "-am", "second")
	})
	expectFiles(t, "a commit", c, "a.txt")
	c = iteration(g, func() {
		gitRun(t, "reset", "--quiet", "--soft", "HEAD~1")
	})
	expectFiles(t, "a commit undone", c)
	if !c.Changed() {
		t.Errorf("HEAD moved: %+v", c)
	}
}

// TestWatchOverflowed: when more changed than the watch could queue, the
// look is whole. Linux queues 16384 events by default; each file written
// is two or three, and the last written is among those lost.
func TestWatchOverflowed(t *testing.T) {
	g := newRepository(t, map[string]string{"a.txt": "a", "b.txt": "b"})
	iteration(g, func() {})
	c := iteration(g, func() {
		for i := range 10000 {
			write(t, []string{"a.txt", "b.txt"}[i%2], fmt.Sprint(i))
		}
		write(t, "last.txt", "after the queue was full")
	})
	expectFiles(t, "more changes than the queue holds", c, "a.txt", "b.txt", "last.txt")
}

// TestSpecialFiles: a tracked file replaced by a pipe is no content to
// read (the look does not wait on it for ever), and one replaced by a
// directory counts with the files in it, watched or looked at whole.
func TestSpecialFiles(t *testing.T) {
	g := newRepository(t, map[string]string{"a": "a", "p": "p"})
	iteration(g, func() {})
	done := make(chan Changes, 1)
	go func() { done <- iteration(g, func() { os.Remove("p"); syscall.Mkfifo("p", 0o644) }) }()
	select {
	case c := <-done:
		expectFiles(t, "a file replaced by a pipe", c, "p")
	case <-time.After(20 * time.Second):
		f, _ := os.OpenFile("p", os.O_WRONLY, 0) // let it go
		f.Close()
		t.Fatal("the look waits on a pipe where a tracked file was")
	}
	c := iteration(g, func() { os.Remove("a"); write(t, "a/x", "x") })
	expectFiles(t, "a file replaced by a directory", c, "a", "a/x")
	whole := NewWorkspaceIn("")
	whole.watched = true // no watch: every look is whole
	c = iteration(whole, func() { write(t, "a/x", "x edited"); write(t, "a/y", "new") })
	expectFiles(t, "whole looks, in the directory that replaced a tracked file", c, "a/x", "a/y")
}

// TestIgnoreRulesChanged: files a changed .gitignore ignores from then on
// are not charged to a later iteration that changed only ignored files,
// and the user's index is left as it was: no untracked cache is written
// into it.
func TestIgnoreRulesChanged(t *testing.T) {
	g := newRepository(t, map[string]string{"a.txt": "a", ".gitignore": "node_modules/\n"})
	write(t, "node_modules/.keep", "")
	write(t, "gen/one", "1")
	write(t, "gen/two", "2")
	iteration(g, func() {})
	iteration(g, func() { write(t, ".gitignore", "node_modules/\ngen/\n") })
	c := iteration(g, func() {
		for i := range 300 { // an npm install: ignored files only
			write(t, fmt.Sprintf("node_modules/p%d.js", i), "x")
		}
	})
	expectFiles(t, "an iteration that changed only ignored files", c)
	if index, _ := os.ReadFile(filepath.Join(".git", "index")); bytes.Contains(index, []byte("UNTR")) {
		t.Error("a look wrote git's untracked cache into the user's index")
	}
}
