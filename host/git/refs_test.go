package git

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// gitSays is what git answers, "" when it fails.
func gitSays(t *testing.T, args ...string) string {
	t.Helper()
	out, ok := Output("", args...)
	if !ok {
		return ""
	}
	return out
}

// TestReadHeadAgreesWithGit: where HEAD is read from the files, it says
// what git says, on a branch, detached and in a linked worktree; where
// git must say (no commit yet, the branch's ref packed), it is not read.
func TestReadHeadAgreesWithGit(t *testing.T) {
	newRepository(t, map[string]string{"a.txt": "a\n"})
	repo := func() Repo {
		Forget("")
		r, ok := Recorded("")
		if !ok {
			t.Fatal("no repository")
		}
		return r
	}
	agrees := func(what string, wantRead bool) {
		t.Helper()
		head, branch, ok := readHead(repo())
		if ok != wantRead {
			t.Fatalf("%s: read %v, want %v", what, ok, wantRead)
		}
		if !ok {
			return
		}
		gitBranch := gitSays(t, "symbolic-ref", "-q", "HEAD")
		if head != gitSays(t, "rev-parse", "HEAD") || branch != gitBranch {
			t.Errorf("%s: read %s on %q; git says %s on %q", what, head, branch, gitSays(t, "rev-parse", "HEAD"), gitBranch)
		}
	}
	agrees("a branch", true)
	gitRun(t, "checkout", "--quiet", "--detach")
	agrees("detached", true)
	gitRun(t, "checkout", "--quiet", "-")
	gitRun(t, "pack-refs", "--all")
	agrees("a packed branch", false)
	gitRun(t, "commit", "--quiet", "--allow-empty", "-m", "second")
	agrees("a branch committed to after packing", true)
	gitRun(t, "checkout", "--quiet", "--orphan", "unborn")
	agrees("a branch not born yet", false)

	gitRun(t, "checkout", "--quiet", "-f", "-")
	wt := filepath.Join(t.TempDir(), "wt")
	gitRun(t, "worktree", "add", "--quiet", "-b", "side", wt)
	t.Chdir(wt)
	agrees("a linked worktree", true)
}

// TestRoodaRefsAsGitSeesThem: a ref rooda writes itself is one git
// reads, and once removed git has none, nor the directories it made;
// one git packed meanwhile is left to git to remove.
func TestRoodaRefsAsGitSeesThem(t *testing.T) {
	g := newRepository(t, map[string]string{"a.txt": "a\n"})
	r, _ := Recorded("")
	head := gitSays(t, "rev-parse", "HEAD")
	const ref = "refs/rooda/20261128T000000.1Z-build-abcd/start/1"
	if !writeRef(r, ref, head) {
		t.Fatal("not written")
	}
	if got := gitSays(t, "rev-parse", ref); got != head {
		t.Errorf("git reads %q, want %q", got, head)
	}
	if !removeRef(r, ref) {
		t.Fatal("not removed")
	}
	if got := gitSays(t, "for-each-ref", "refs/rooda/"); got != "" {
		t.Errorf("git still lists %q", got)
	}
	PruneRefDirs("", "20261128T000000.1Z-build-abcd") // as the run ends
	if entries, _ := os.ReadDir(filepath.Join(r.CommonDir, "refs", "rooda")); len(entries) != 0 {
		t.Errorf("left in refs/rooda: %v", entries)
	}
	writeRef(r, ref, head)
	gitRun(t, "pack-refs", "--all")
	if removeRef(r, ref) {
		t.Error("a packed ref was taken for removed")
	}
	// Written again over the packed one, it is not removed here: the
	// packed one would come back.
	if !writeRef(r, ref, head) || removeRef(r, ref) {
		t.Error("a ref both loose and packed was removed here")
	}
	if err := g.DropRef(ref); err != nil || gitSays(t, "for-each-ref", "refs/rooda/") != "" {
		t.Errorf("DropRef of a packed ref: %v, left %q", err, gitSays(t, "for-each-ref", "refs/rooda/"))
	}
	// A lock held is a git at work on the ref: rooda leaves it to git.
	lock := filepath.Join(r.CommonDir, filepath.FromSlash(ref)) + ".lock"
	if err := os.MkdirAll(filepath.Dir(lock), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(lock, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if writeRef(r, ref, head) {
		t.Error("written under git's lock")
	}
	if _, err := os.Stat(lock); err != nil {
		t.Errorf("git's lock taken away: %v", err)
	}
	for _, bad := range []string{"refs/heads/main", "refs/rooda/../../config", "refs/rooda/x/.hidden", "refs/rooda/x.lock"} {
		if writeRef(r, bad, head) {
			t.Errorf("%s written", bad)
		}
	}
	if writeRef(r, "refs/rooda/x", strings.Repeat("z", 40)) {
		t.Error("a ref to no hash written")
	}
}

// TestSnapshotKeptWhileNothingChanges: the workspace's snapshot is the
// last one's commit while the tree, HEAD and its branch stay as they
// were; a file changed, HEAD moved or the branch switched makes a new
// one that holds what changed.
func TestSnapshotKeptWhileNothingChanges(t *testing.T) {
	g := newRepository(t, map[string]string{"a.txt": "a\n"})
	snap := func(n int) string {
		t.Helper()
		commit, ok, err := g.Snapshot("refs/rooda/r/start/"+string(rune('0'+n)), "start")
		if !ok || err != nil {
			t.Fatalf("snapshot %d: %v %v", n, ok, err)
		}
		return commit
	}
	first := snap(1)
	if again := snap(2); again != first {
		t.Errorf("nothing changed, yet a new snapshot %s (was %s)", again, first)
	}
	write(t, "a.txt", "a, edited\n")
	edited := snap(3)
	if edited == first || gitSays(t, "show", edited+":a.txt") != "a, edited" {
		t.Errorf("an edit's snapshot %s holds %q", edited, gitSays(t, "show", edited+":a.txt"))
	}
	g.Before() // a look between takes the watch's paths too
	write(t, "new/b.txt", "b\n")
	g.After()
	if made := snap(4); gitSays(t, "show", made+":new/b.txt") != "b" {
		t.Errorf("a file made between snapshots, looked at since, is not in %s", made)
	}
	gitRun(t, "commit", "--quiet", "--allow-empty", "-m", "second")
	moved := snap(5)
	if gitSays(t, "rev-parse", moved+"^") != gitSays(t, "rev-parse", "HEAD") {
		t.Errorf("HEAD moved, yet the snapshot's parent is %s", gitSays(t, "rev-parse", moved+"^"))
	}
	gitRun(t, "checkout", "--quiet", "-b", "other")
	if switched := snap(6); switched == moved || !strings.Contains(gitSays(t, "log", "-1", "--format=%B", switched), "branch: refs/heads/other") {
		t.Errorf("the branch switched, yet the snapshot says %q", gitSays(t, "log", "-1", "--format=%B", switched))
	}
	for n := 1; n <= 6; n++ {
		if gitSays(t, "rev-parse", "--verify", "-q", "refs/rooda/r/start/"+string(rune('0'+n))) == "" {
			t.Errorf("start %d has no ref", n)
		}
	}
}

// TestSnapshotNotKeptOnceGone: a snapshot's commit that a gc pruned
// between two iterations (no ref holds it then) is not kept under the
// next one's ref: it is made again.
func TestSnapshotNotKeptOnceGone(t *testing.T) {
	g := newRepository(t, map[string]string{"a.txt": "a\n"})
	first, _, err := g.Snapshot("refs/rooda/r/start/1", "start")
	if err != nil {
		t.Fatal(err)
	}
	if err := g.DropRef("refs/rooda/r/start/1"); err != nil {
		t.Fatal(err)
	}
	gitRun(t, "gc", "--quiet", "--prune=now")
	second, _, err := g.Snapshot("refs/rooda/r/start/2", "start")
	if err != nil || gitSays(t, "cat-file", "-t", second) != "commit" {
		t.Errorf("after a gc: snapshot %s (was %s), %v", second, first, err)
	}
}

// TestStartsLeaveTheirDirectoriesUntilTheRunEnds: an iteration's start
// dropped leaves its directories for the next one's, which the run
// writes at once (two inodes made and freed an iteration, otherwise);
// once the run ends they go, but not one that still holds a ref.
func TestStartsLeaveTheirDirectoriesUntilTheRunEnds(t *testing.T) {
	g := newRepository(t, map[string]string{"a.txt": "a\n"})
	r, _ := Recorded("")
	head := gitSays(t, "rev-parse", "HEAD")
	const run = "20261128T000000.1Z-build-abcd"
	start := filepath.Join(r.CommonDir, "refs", "rooda", run, "start")
	for n := 1; n <= 3; n++ {
		ref := fmt.Sprintf("refs/rooda/%s/start/%d", run, n)
		if !writeRef(r, ref, head) {
			t.Fatal("not written")
		}
		if err := g.DropRef(ref); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(start); err != nil {
			t.Fatalf("iteration %d's start dropped took its directory: %v", n, err)
		}
	}
	const other = "refs/rooda/20261128T000000.2Z-build-ef01/partial/1"
	if !writeRef(r, other, head) {
		t.Fatal("not written")
	}
	PruneRefDirs("", run)
	if _, err := os.Stat(filepath.Join(r.CommonDir, "refs", "rooda", run)); !os.IsNotExist(err) {
		t.Errorf("the run's directories stay once it ended: %v", err)
	}
	if got := gitSays(t, "for-each-ref", "--format=%(refname)", "refs/rooda/"); got != other {
		t.Errorf("git lists %q, want the other run's ref alone", got)
	}
	PruneRefDirs("", "../..")
	if _, err := os.Stat(r.CommonDir); err != nil {
		t.Fatal(err)
	}
}

// TestHashNames: a full name is SHA-1's 40 or SHA-256's 64 digits of
// lower-case hex, nothing between; an abbreviation 7 to 64 of them.
func TestHashNames(t *testing.T) {
	sha1, sha256 := strings.Repeat("a1", 20), strings.Repeat("0f", 32)
	for _, c := range []struct {
		s            string
		full, prefix bool
	}{
		{sha1, true, true},
		{sha256, true, true},
		{sha1 + "0", false, true},
		{sha256[:63], false, true},
		{"cafe123", false, true},
		{"cafe12", false, false},
		{sha256 + "0", false, false},
		{strings.ToUpper(sha1), false, false},
		{sha1[:39] + "g", false, false},
		{"", false, false},
	} {
		if got := IsHash(c.s); got != c.full {
			t.Errorf("IsHash(%q) = %v", c.s, got)
		}
		if got := IsHashPrefix(c.s); got != c.prefix {
			t.Errorf("IsHashPrefix(%q) = %v", c.s, got)
		}
	}
}
