package fleet

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"rooda/host/journal"
	"rooda/host/runlog"
)

// gitRun runs git in dir, failing the test if it fails, and returns its
// output trimmed.
func gitRun(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.org"}, args...)...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// commitIn commits a new file in the clone at dir.
func commitIn(t *testing.T, dir, file string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, file), []byte(file), 0o644); err != nil {
		t.Fatal(err)
	}
	gitRun(t, dir, "add", file)
	gitRun(t, dir, "commit", "-qm", file)
}

// TestAPushGoesOnlyOverWhatThePusherLeft: two workers' clones of a run's
// repository, the first's lease lapsed: the taker's clone starts from
// the branch as the first pushed it, and pushes over it; the first,
// which goes on (paused past its lease, then continued), can no longer
// push its branch over the taker's commits (--force-with-lease from
// what it last saw), nor its record's refs over the taker's (the push
// is atomic). The record's refs go with the branch, and those dropped
// in the clone are dropped on the remote.
func TestAPushGoesOnlyOverWhatThePusherLeft(t *testing.T) {
	ctx := context.Background()
	run := repoRun(t, "pushed")
	remote := run.Repo

	first := filepath.Join(t.TempDir(), "pushed")
	if err := clone(ctx, first, run); err != nil {
		t.Fatal(err)
	}
	p := newBranchPush(ctx, first, run, "first", 1)
	commitIn(t, first, "one.txt")
	gitRun(t, first, "update-ref", "refs/rooda/rec1/start/2", "HEAD")
	if err := p.push(ctx, "rec1"); err != nil {
		t.Fatal(err)
	}
	if got := gitRun(t, remote, "log", "--format=%s", Branch(run)); got != "one.txt\nstart.txt" {
		t.Fatalf("the remote's branch after the first push: %q", got)
	}
	if got := gitRun(t, remote, "for-each-ref", "--format=%(refname)", "refs/rooda/rec1/"); got != "refs/rooda/rec1/start/2" {
		t.Fatalf("the remote's refs of the record: %q", got)
	}

	taker := filepath.Join(t.TempDir(), "pushed")
	if err := clone(ctx, taker, run); err != nil {
		t.Fatal(err)
	}
	if got := gitRun(t, taker, "log", "--format=%s", "HEAD"); got != "one.txt\nstart.txt" {
		t.Fatalf("the taker's clone starts at %q, want the branch as pushed", got)
	}
	q := newBranchPush(ctx, taker, run, "taker", 2)
	commitIn(t, taker, "two.txt")
	if err := q.push(ctx, "rec1"); err != nil {
		t.Fatal(err)
	}
	// The taker's clone has no start ref: the remote's is dropped.
	if got := gitRun(t, remote, "for-each-ref", "refs/rooda/rec1/"); got != "" {
		t.Errorf("the remote's refs of the record after the taker's push: %q, want none", got)
	}
	gitRun(t, taker, "update-ref", "refs/rooda/rec1/start/3", "HEAD")
	if err := q.push(ctx, "rec1"); err != nil {
		t.Fatal(err)
	}

	commitIn(t, first, "late.txt")
	if err := p.push(ctx, "rec1"); !errors.Is(err, errPushedOver) {
		t.Errorf("the push of the worker that lost the run: %v, want errPushedOver (a lost run)", err)
	}
	if got := gitRun(t, remote, "log", "--format=%s", Branch(run)); got != "two.txt\none.txt\nstart.txt" {
		t.Errorf("the remote's branch: %q, want the taker's", got)
	}
	// Nor its refs: the push refused is refused whole (--atomic), the
	// taker's start ref neither pruned nor forced.
	if got := gitRun(t, remote, "for-each-ref", "--format=%(refname)", "refs/rooda/rec1/"); got != "refs/rooda/rec1/start/3" {
		t.Errorf("the remote's refs of the record after a refused push: %q, want the taker's refs/rooda/rec1/start/3", got)
	}
}

// TestAWorkspaceBehindTheStoreIsKnown: a workspace a worker kept from an
// earlier attempt of a run is behind the store once the store's journal
// went further (the run went on on another machine since), not while it
// holds as much, nor for a run the store has nothing of.
func TestAWorkspaceBehindTheStoreIsKnown(t *testing.T) {
	ctx := context.Background()
	f := client(t, embedded(t))
	runs := t.TempDir()
	rec := startRecord(t, runs)
	jnl, err := journal.Open(filepath.Join(rec.Dir(), journal.Name))
	if err != nil {
		t.Fatal(err)
	}
	defer jnl.Close()
	jnl.Append(journal.Entry{Kind: journal.Began, Key: journal.Key{Thread: "main", Seq: 1}, N: 1, Record: 1}, true)
	c, err := f.newRecordCopy(ctx, "r", runs, nil)
	if err != nil {
		t.Fatal(err)
	}
	kept := t.TempDir()
	if _, err := f.downloadRecords(ctx, "r", kept, filepath.Dir(kept)); err != nil {
		t.Fatal(err)
	}
	behind := func(runs, name string) bool {
		t.Helper()
		b, err := f.behindStore(ctx, runs, name)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	if err := c.sync(ctx, false); err != nil {
		t.Fatal(err)
	}
	if _, err := f.downloadRecords(ctx, "r", kept, filepath.Dir(kept)); err != nil {
		t.Fatal(err)
	}
	if behind(kept, "r") || behind(t.TempDir(), "another") {
		t.Fatal("a workspace that holds what the store holds, or a run the store lacks, is said behind")
	}
	jnl.Append(journal.Entry{Kind: journal.Ended, Key: journal.Key{Thread: "main", Seq: 1}, N: 1, Record: 1}, true)
	if err := c.sync(ctx, false); err != nil {
		t.Fatal(err)
	}
	if !behind(kept, "r") {
		t.Error("a workspace whose journal the store's went past is not said behind")
	}
	if !behind(t.TempDir(), "r") {
		t.Error("a workspace without the store's record is not said behind")
	}
}

// TestATakerPutsBackABranchPushedPastTheJournal: a worker pushes the
// branch, then uploads the journal's piece that names its commits; one
// killed between the two leaves the remote's branch past the store's
// journal. The worker that takes the run over on another machine puts
// its clone's branch back where the journal's last iteration ended,
// which the resume wants, keeping the commits past it under a ref.
func TestATakerPutsBackABranchPushedPastTheJournal(t *testing.T) {
	ctx := context.Background()
	s := embedded(t)
	f := client(t, s)
	run := repoRun(t, "ahead")

	first := filepath.Join(t.TempDir(), "ahead")
	if err := clone(ctx, first, run); err != nil {
		t.Fatal(err)
	}
	runs := filepath.Join(first, runlog.DefaultDir)
	rec := startRecord(t, runs)
	commitIn(t, first, "one.txt")
	one := gitRun(t, first, "rev-parse", "HEAD")
	jnl, err := journal.Open(filepath.Join(rec.Dir(), journal.Name))
	if err != nil {
		t.Fatal(err)
	}
	defer jnl.Close()
	key := journal.Key{Thread: "main", Seq: 1}
	jnl.Append(journal.Entry{Kind: journal.Began, Key: key, N: 1, Record: 1}, true)
	jnl.Append(journal.Entry{Kind: journal.Ended, Key: key, N: 1, Record: 1,
		Result: []byte(`{"changes":{"InRepo":true,"HeadAfter":"` + one + `"}}`)}, true)
	c, err := f.newRecordCopy(ctx, run.Name, runs, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.sync(ctx, true); err != nil {
		t.Fatal(err)
	}
	// Iteration 2 ends, its commit pushed; the worker dies before the
	// journal's piece that says so is uploaded.
	commitIn(t, first, "two.txt")
	two := gitRun(t, first, "rev-parse", "HEAD")
	gitRun(t, first, "push", "-q", "origin", Branch(run))

	w := &Worker{Queue: queue(t, client(t, s), time.Minute), Name: "taker", Workspaces: t.TempDir(), Log: io.Discard}
	ws, made, err := workspace(ctx, w.Workspaces, run)
	if err != nil || !made {
		t.Fatalf("the taker's workspace: %v (made %v)", err, made)
	}
	if ws, err = w.fromStore(ctx, ws, made, run); err != nil {
		t.Fatal(err)
	}
	if got := gitRun(t, ws, "rev-parse", "HEAD"); got != one {
		t.Errorf("the taker's clone is at %s, want %s, where the journal's last iteration ended", got, one)
	}
	if got := gitRun(t, ws, "rev-parse", pastJournalRef(run)); got != two {
		t.Errorf("the commits past the journal are kept at %s, want %s", got, two)
	}
}

// TestAKeptWorkspaceIsJudgedByItsJournalsContent: a workspace kept on
// one machine whose journal is longer than the store's, the run having
// gone on elsewhere from an earlier point (other entries, fewer bytes),
// is behind the store: its length alone does not say it holds the
// store's journal.
func TestAKeptWorkspaceIsJudgedByItsJournalsContent(t *testing.T) {
	ctx := context.Background()
	f := client(t, embedded(t))
	key := journal.Key{Thread: "main", Seq: 1}
	elsewhere := t.TempDir()
	rec := startRecord(t, elsewhere)
	id := filepath.Base(rec.Dir())
	there := openJournal(t, filepath.Join(rec.Dir(), journal.Name))
	appendTo(t, there, journal.Entry{Kind: journal.Began, Key: key, N: 1, Record: 1})
	c, err := f.newRecordCopy(ctx, "r", elsewhere, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.sync(ctx, false); err != nil {
		t.Fatal(err)
	}
	kept := filepath.Join(t.TempDir(), "runs")
	if err := os.MkdirAll(kept, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := f.downloadRecords(ctx, "r", kept, filepath.Dir(kept)); err != nil {
		t.Fatal(err)
	}
	here := openJournal(t, filepath.Join(kept, id, journal.Name))
	appendTo(t, here, journal.Entry{Kind: journal.Ended, Key: key, N: 1, Record: 1, What: "this machine's, the longer of the two"})
	appendTo(t, here, journal.Entry{Kind: journal.Began, Key: key, N: 2, Record: 2})
	appendTo(t, there, journal.Entry{Kind: journal.Ended, Key: key, N: 1, Record: 1, What: "elsewhere"})
	if err := c.sync(ctx, false); err != nil {
		t.Fatal(err)
	}
	behind, err := f.behindStore(ctx, kept, "r")
	if err != nil {
		t.Fatal(err)
	}
	if !behind {
		t.Error("a kept workspace whose longer journal is not the store's is not said behind it")
	}
}

// TestACallThatMovedTheBranchIsPushedBeforeItsEntry: a script's call
// that commits between iterations (git_merge()) is journaled without
// an iteration's edge; the branch it moved is pushed before the piece
// that holds its entry.
func TestACallThatMovedTheBranchIsPushedBeforeItsEntry(t *testing.T) {
	ctx := context.Background()
	run := repoRun(t, "merged")
	remote := run.Repo
	ws := filepath.Join(t.TempDir(), "merged")
	if err := clone(ctx, ws, run); err != nil {
		t.Fatal(err)
	}
	p := newBranchPush(ctx, ws, run, "w", 1)
	call := []journal.Entry{{Kind: journal.Call, Key: journal.Key{Thread: "main", Seq: 2}, Op: "git_merge"}}
	commitIn(t, ws, "merged.txt")
	if err := p.beforeJournal(ctx, "rec1", call); err != nil {
		t.Fatal(err)
	}
	if got, want := gitRun(t, remote, "rev-parse", Branch(run)), gitRun(t, ws, "rev-parse", "HEAD"); got != want {
		t.Errorf("the remote's branch after the call's piece: %s, want the clone's %s", got, want)
	}
}

// repoRun is a run of a new bare repository of one commit.
func repoRun(t *testing.T, name string) Run {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	src := t.TempDir()
	gitRun(t, src, "init", "-q")
	commitIn(t, src, "start.txt")
	remote := filepath.Join(t.TempDir(), "remote.git")
	gitRun(t, src, "clone", "-q", "--bare", src, remote)
	ref, err := ResolveRemoteRef(context.Background(), remote, "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	return Run{Name: name, Argv: RoodaArgs("build", nil), Repo: remote, Ref: ref}
}

// cloneFor is the clone of run a worker makes as it takes it, and its
// pushes as that worker at that attempt.
func cloneFor(t *testing.T, run Run, worker string, attempt int) (string, *branchPush) {
	t.Helper()
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), run.Name)
	if err := clone(ctx, dir, run); err != nil {
		t.Fatal(err)
	}
	return dir, newBranchPush(ctx, dir, run, worker, attempt)
}

// TestAWorkerThatLostItsRunCannotPushBeforeItsTaker: a worker paused
// past its lease comes back and pushes the run's branch before its
// taker pushed anything; the branch is where it left it, but the taker
// claimed the holder ref as it took the run, and the paused worker's
// push is refused whole (the branch, its record's refs, the holder),
// as a run lost. Its clone, kept on its machine, is seen behind the
// remote from the claim on, though the branch did not move.
func TestAWorkerThatLostItsRunCannotPushBeforeItsTaker(t *testing.T) {
	ctx := context.Background()
	run := repoRun(t, "fenced")
	remote := run.Repo
	first, p := cloneFor(t, run, "first", 1)
	if err := p.claim(ctx); err != nil {
		t.Fatal(err)
	}
	commitIn(t, first, "one.txt")
	gitRun(t, first, "update-ref", "refs/rooda/rec1/start/2", "HEAD")
	if err := p.push(ctx, "rec1"); err != nil {
		t.Fatal(err)
	}
	if moved, err := remoteMoved(ctx, first, run); err != nil || moved {
		t.Fatalf("the first worker's clone is behind the remote it pushed last: %v (%v)", moved, err)
	}

	taker, q := cloneFor(t, run, "taker", 2)
	if err := q.claim(ctx); err != nil {
		t.Fatalf("the taker's claim: %v", err)
	}
	held := gitRun(t, remote, "rev-parse", holderRef(run))
	if got := gitRun(t, remote, "log", "-1", "--format=%s", held); !strings.Contains(got, "held by taker attempt 2") {
		t.Errorf("the holder after the taker's claim says %q", got)
	}
	if moved, err := remoteMoved(ctx, first, run); err != nil || !moved {
		t.Errorf("the first worker's clone is not behind the remote once the taker claimed the run: %v (%v)", moved, err)
	}

	commitIn(t, first, "late.txt")
	gitRun(t, first, "update-ref", "refs/rooda/rec1/start/3", "HEAD")
	gitRun(t, first, "update-ref", "-d", "refs/rooda/rec1/start/2")
	if err := p.push(ctx, "rec1"); !errors.Is(err, errPushedOver) || !isLost(err) {
		t.Errorf("the push of the worker that lost the run, before its taker's: %v, want errPushedOver (a lost run)", err)
	}
	if got := gitRun(t, remote, "log", "--format=%s", Branch(run)); got != "one.txt\nstart.txt" {
		t.Errorf("the remote's branch: %q, want it as the taker found it", got)
	}
	if got := gitRun(t, remote, "for-each-ref", "--format=%(refname)", "refs/rooda/rec1/"); got != "refs/rooda/rec1/start/2" {
		t.Errorf("the remote's refs of the record after a refused push: %q, want them as the taker found them", got)
	}
	if got := gitRun(t, remote, "rev-parse", holderRef(run)); got != held {
		t.Errorf("the remote's holder after a refused push: %s, want the taker's %s", got, held)
	}

	commitIn(t, taker, "two.txt")
	if err := q.push(ctx, "rec1"); err != nil {
		t.Fatalf("the taker's push: %v", err)
	}
	if got := gitRun(t, remote, "log", "--format=%s", Branch(run)); got != "two.txt\none.txt\nstart.txt" {
		t.Errorf("the remote's branch after the taker's push: %q", got)
	}
}

// TestAClaimIsRefusedOnceTheHolderMovedSinceTheClone: a worker pushes
// the run between the clone of the worker that takes the run over and
// its claim: the claim is refused (that clone is not where the run
// is), and the holder stays the pusher's.
func TestAClaimIsRefusedOnceTheHolderMovedSinceTheClone(t *testing.T) {
	ctx := context.Background()
	run := repoRun(t, "raced")
	first, p := cloneFor(t, run, "first", 1)
	if err := p.claim(ctx); err != nil {
		t.Fatal(err)
	}
	_, q := cloneFor(t, run, "taker", 2)
	commitIn(t, first, "one.txt")
	if err := p.push(ctx, ""); err != nil {
		t.Fatal(err)
	}
	held := gitRun(t, run.Repo, "rev-parse", holderRef(run))
	if err := q.claim(ctx); !errors.Is(err, errClaimRefused) {
		t.Errorf("a claim from a clone made before the last push: %v, want errClaimRefused", err)
	}
	if got := gitRun(t, run.Repo, "rev-parse", holderRef(run)); got != held {
		t.Errorf("the holder after a refused claim: %s, want the pusher's %s", got, held)
	}
}

// failingAfterLanding makes every push land, then report a failure, as
// git stopped after the remote updated its refs does (the worker
// stopping its looks, a timeout, a network cut before git's report);
// then, if cancel is set, the push's context ended (no look at the
// remote can follow).
func failingAfterLanding(t *testing.T, cancel context.CancelFunc) {
	t.Helper()
	t.Cleanup(func() { gitPush = git })
	gitPush = func(ctx context.Context, dir string, args ...string) error {
		if err := git(ctx, dir, args...); err != nil {
			t.Fatalf("the push itself: %v", err)
		}
		if cancel != nil {
			cancel()
		}
		return errors.New("git push: the connection dropped before git's report")
	}
}

// TestAPushThatLandedButWasReportedFailedIsTheWorkersOwn: a push lands
// on the remote but git reports it failed: the worker takes it as
// pushed, and its next push goes on from there, not refused as a run
// lost. When the push's context ended with it (no look at the remote
// then), the next push looks first.
func TestAPushThatLandedButWasReportedFailedIsTheWorkersOwn(t *testing.T) {
	ctx := context.Background()
	run := repoRun(t, "landed")
	ws, p := cloneFor(t, run, "w", 1)
	if err := p.claim(ctx); err != nil {
		t.Fatal(err)
	}

	commitIn(t, ws, "one.txt")
	failingAfterLanding(t, nil)
	if err := p.push(ctx, ""); err != nil {
		t.Errorf("a push that landed, reported failed: %v, want it taken as pushed", err)
	}
	commitIn(t, ws, "two.txt")
	stopped, cancel := context.WithCancel(ctx)
	failingAfterLanding(t, cancel)
	if err := p.push(stopped, ""); err == nil || isLost(err) {
		t.Errorf("a push that landed, reported failed as it was stopped: %v, want a failure, not the run lost", err)
	}

	gitPush = git
	commitIn(t, ws, "three.txt")
	if err := p.push(ctx, ""); err != nil {
		t.Fatalf("the push after them: %v, want it to go on from them", err)
	}
	if got := gitRun(t, run.Repo, "log", "--format=%s", Branch(run)); got != "three.txt\ntwo.txt\none.txt\nstart.txt" {
		t.Errorf("the remote's branch: %q", got)
	}
}

// refusedInOtherWords makes every push fail without pushing, with
// words that are not a lease's "stale info": a ref moved between git's
// look and its update.
func refusedInOtherWords(t *testing.T) {
	t.Helper()
	t.Cleanup(func() { gitPush = git })
	gitPush = func(context.Context, string, ...string) error {
		return errors.New("git push: ! [remote rejected] (cannot lock ref)")
	}
}

// TestARefusalIsJudgedByTheRemotesHolder: a push or claim git reports
// failed, in whatever words, is a run lost when the remote's holder is
// another's, and an ordinary failure (tried again) when it is still the
// one this worker last pushed.
func TestARefusalIsJudgedByTheRemotesHolder(t *testing.T) {
	ctx := context.Background()
	run := repoRun(t, "judged")
	first, p := cloneFor(t, run, "first", 1)
	_, q := cloneFor(t, run, "taker", 2)
	if err := p.claim(ctx); err != nil {
		t.Fatal(err)
	}
	commitIn(t, first, "one.txt")
	refusedInOtherWords(t)
	if err := p.push(ctx, ""); err == nil || isLost(err) {
		t.Errorf("a push that failed, the holder still this worker's: %v, want a failure, not the run lost", err)
	}
	if err := q.claim(ctx); !errors.Is(err, errClaimRefused) {
		t.Errorf("a claim that failed, the holder another's since the clone: %v, want errClaimRefused", err)
	}

	gitPush = git
	_, r := cloneFor(t, run, "taker", 3)
	if err := r.claim(ctx); err != nil {
		t.Fatal(err)
	}
	refusedInOtherWords(t)
	if err := p.push(ctx, ""); !errors.Is(err, errPushedOver) {
		t.Errorf("a push that failed, the holder another's: %v, want errPushedOver", err)
	}
}

// TestAPruningFetchKeepsThePastJournalRef: a fetch that prunes (an
// agent's git pull, with the user's fetch.prune) in a clone keeps the
// commits set aside past the store's journal, which the remote does not
// have, and the clone's copy of the remote's holder.
func TestAPruningFetchKeepsThePastJournalRef(t *testing.T) {
	ctx := context.Background()
	run := repoRun(t, "pruned")
	ws, p := cloneFor(t, run, "w", 1)
	if err := p.claim(ctx); err != nil {
		t.Fatal(err)
	}
	gitRun(t, ws, "update-ref", pastJournalRef(run), "HEAD")
	gitRun(t, ws, "-c", "fetch.prune=true", "fetch", "--quiet")
	if err := git(ctx, ws, "rev-parse", "--verify", "--quiet", pastJournalRef(run)); err != nil {
		t.Errorf("%s after a pruning fetch: %v, want it kept", pastJournalRef(run), err)
	}
	if got, want := remoteHolder(ctx, ws, run), gitRun(t, run.Repo, "rev-parse", holderRef(run)); got != want {
		t.Errorf("the clone's copy of the remote's holder after a pruning fetch: %q, want %s", got, want)
	}
}
