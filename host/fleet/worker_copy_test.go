package fleet

import (
	"context"
	"errors"
	"io"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"rooda/host/journal"
	"rooda/host/runlog"
)

// failingLists makes the store's listing fail n times, as a server out
// of reach a moment would, until the test ends.
func failingLists(t *testing.T, n int32) {
	t.Helper()
	list := listObjects
	var failed atomic.Int32
	listObjects = func(ctx context.Context, obs jetstream.ObjectStore) ([]*jetstream.ObjectInfo, error) {
		if failed.Add(1) <= n {
			return nil, errors.New("the store is out of reach")
		}
		return list(ctx, obs)
	}
	t.Cleanup(func() { listObjects = list })
}

// TestAFailedListingDoesNotStopTheWriteThrough: the store's listing
// fails as a run's write-through begins (a server out of reach a
// moment): the copy is tried again at the next looks, and the record
// reaches the store once the store answers, rather than never.
func TestAFailedListingDoesNotStopTheWriteThrough(t *testing.T) {
	s := embedded(t)
	f := client(t, s)
	ctx := context.Background()
	if _, err := f.Add(ctx, testRun("listed")); err != nil {
		t.Fatal(err)
	}
	q := queue(t, f, time.Minute)
	l := take(t, q, "w", 10*time.Second)
	dir := t.TempDir()
	rec, err := runlog.Start(filepath.Join(dir, runlog.DefaultDir), "build", []string{"run", "build"}, 10, "")
	if err != nil {
		t.Fatal(err)
	}
	jnl, err := journal.Open(filepath.Join(rec.Dir(), journal.Name))
	if err != nil {
		t.Fatal(err)
	}
	defer jnl.Close()
	if err := jnl.Append(journal.Entry{Kind: journal.Call, Key: journal.Key{Thread: "main", Seq: 1}, Op: "iterate"}, true); err != nil {
		t.Fatal(err)
	}
	failingLists(t, 3)
	w := &Worker{Queue: q, Name: "w", Log: io.Discard}
	c := w.writeThrough(ctx, l, dir, nil)
	defer c.stop()
	id := filepath.Base(rec.Dir())
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		stored, err := storedRecords(ctx, f.records, "listed")
		if err == nil && len(stored[id].pieces) > 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the record never reached the store after its listing failed at the start")
		}
	}
}

// TestTheLastPushAsksTheLeaseFirst: a run's last writes, as its rooda
// stops, are those of a worker that may have lost the run meanwhile
// (paused past its lease): its branch is not pushed then, and the
// failure says the run was lost.
func TestTheLastPushAsksTheLeaseFirst(t *testing.T) {
	ctx := context.Background()
	f := client(t, embedded(t))
	run := repoRun(t, "paused")
	remote := run.Repo
	ws := filepath.Join(t.TempDir(), "paused")
	if err := clone(ctx, ws, run); err != nil {
		t.Fatal(err)
	}
	runs := filepath.Join(ws, runlog.DefaultDir)
	if _, err := runlog.Start(runs, "build", []string{"run", "build"}, 10, ""); err != nil {
		t.Fatal(err)
	}
	held := func(context.Context) error { return ErrRevisionMoved }
	rc, err := f.newRecordCopy(ctx, run.Name, runs, held)
	if err != nil {
		t.Fatal(err)
	}
	ids, _ := runlog.IDs(runs)
	rc.id = ids[0]
	w := &Worker{Name: "w", Log: io.Discard}
	c := &copying{w: w, name: run.Name, runs: runs, held: held, rc: rc, push: newBranchPush(ctx, ws, run, "w", 1)}
	commitIn(t, ws, "late.txt")
	if err := c.last(ctx); !isLost(err) {
		t.Errorf("the last writes of a worker that lost the run: %v, want the run lost", err)
	}
	if got := gitRun(t, remote, "branch", "--list", Branch(run)); got != "" {
		t.Errorf("a worker that lost the run pushed its branch as it stopped: %q", got)
	}
}

// TestARunWhoseLastPushFailedDoesNotEndInSuccess: the worker writes a
// run's end once its last writes are done; a clone's run whose branch
// could not be pushed then has its commits on this machine alone, and
// is not said a success.
func TestARunWhoseLastPushFailedDoesNotEndInSuccess(t *testing.T) {
	ok := Ending{Status: "success"}
	if got, _ := afterLastWrites(ok, nil, true); got != ok {
		t.Errorf("a run written back whole ends %+v, want %+v", got, ok)
	}
	got, cause := afterLastWrites(ok, errors.New("git push failed"), true)
	if got.Status == "success" || cause == nil {
		t.Errorf("a run whose last push failed ends %+v (%v), not an error", got, cause)
	}
	if got, _ := afterLastWrites(ok, errors.New("the store is out of reach"), false); got != ok {
		t.Errorf("a worktree's run, whose commits are in its checkout, ends %+v when its record's last write failed, want %+v", got, ok)
	}
}

// TestARunWhoseWorkspaceCannotBeMadeIsTriedAgain: a run whose clone
// fails (a network cut, a server restarting) is given back to be tried
// again, not ended; once its attempts reach takeTries it ends in error.
func TestARunWhoseWorkspaceCannotBeMadeIsTriedAgain(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	ctx := context.Background()
	f := client(t, embedded(t))
	run := Run{Name: "unreachable", Argv: RoodaArgs("build", nil), Repo: filepath.Join(t.TempDir(), "gone.git"), Ref: "0123abcd"}
	if _, err := f.Add(ctx, run); err != nil {
		t.Fatal(err)
	}
	q := queue(t, f, time.Second)
	w := &Worker{Queue: q, Name: "w", Workspaces: t.TempDir(), Logs: t.TempDir(), Log: io.Discard, Rooda: "/bin/false"}
	for attempt := 1; attempt <= takeTries; attempt++ {
		l := take(t, q, "w", 60*time.Second)
		w.work(ctx, l)
		st, err := f.State(ctx, run.Name)
		if err != nil {
			t.Fatal(err)
		}
		if attempt < takeTries && st.Phase == Ended {
			t.Fatalf("at attempt %d, a run whose clone failed ended: %+v", attempt, st)
		}
		if attempt == takeTries && (st.Phase != Ended || st.Status != "error") {
			t.Fatalf("at attempt %d, the last, the run is %+v, want ended in error", attempt, st)
		}
	}
}

// TestARunWhoseClaimIsRefusedIsGivenBackNotEnded: a worker that lost
// the run, not knowing it yet, pushes the holder between each take's
// clone and its claim: each claim is refused, and the run given back
// for a worker to take again from a clone made then; a refusal is not
// the taker's failure, and does not end the run once its attempts reach
// takeTries, as a clone that fails does.
func TestARunWhoseClaimIsRefusedIsGivenBackNotEnded(t *testing.T) {
	ctx := context.Background()
	run := repoRun(t, "contested")
	lost := filepath.Join(t.TempDir(), "lost")
	if err := clone(ctx, lost, run); err != nil {
		t.Fatal(err)
	}
	var pushedByTheLost string
	pushes := 0
	t.Cleanup(func() { gitPush = git })
	gitPush = func(ctx context.Context, dir string, args ...string) error {
		if !slices.Contains(args, "--prune") { // a claim, not a push
			pushes++
			pushedByTheLost = gitRun(t, lost, "commit-tree", "-p", "HEAD", "-m", "the lost worker's push "+strconv.Itoa(pushes), "HEAD^{tree}")
			gitRun(t, lost, "push", "--quiet", "--force", "origin", pushedByTheLost+":"+holderRef(run))
		}
		return git(ctx, dir, args...)
	}
	f := client(t, embedded(t))
	if _, err := f.Add(ctx, run); err != nil {
		t.Fatal(err)
	}
	q := queue(t, f, time.Second)
	w := &Worker{Queue: q, Name: "w", Workspaces: t.TempDir(), Logs: t.TempDir(), Log: io.Discard, Rooda: "/bin/false"}
	for attempt := 1; attempt <= takeTries; attempt++ {
		l := take(t, q, "w", 60*time.Second)
		w.work(ctx, l)
		st, err := f.State(ctx, run.Name)
		if err != nil {
			t.Fatal(err)
		}
		if st.Phase == Ended {
			t.Fatalf("at attempt %d, a run whose claim was refused ended: %+v", attempt, st)
		}
		if got := gitRun(t, run.Repo, "rev-parse", holderRef(run)); got != pushedByTheLost {
			t.Fatalf("at attempt %d, the remote's holder is %s, want the lost worker's %s", attempt, got, pushedByTheLost)
		}
	}
}

// TestLooksThatFailBackOff: a store out of reach for good is not asked
// at every look (200 ms) but less and less often.
func TestLooksThatFailBackOff(t *testing.T) {
	s := embedded(t)
	f := client(t, s)
	ctx := context.Background()
	if _, err := f.Add(ctx, testRun("unreachable-store")); err != nil {
		t.Fatal(err)
	}
	q := queue(t, f, time.Minute)
	l := take(t, q, "w", 10*time.Second)
	var asked atomic.Int32
	list := listObjects
	listObjects = func(context.Context, jetstream.ObjectStore) ([]*jetstream.ObjectInfo, error) {
		asked.Add(1)
		return nil, errors.New("the store is out of reach")
	}
	t.Cleanup(func() { listObjects = list })
	w := &Worker{Queue: q, Name: "w", Log: io.Discard}
	dir := t.TempDir()
	c := w.writeThrough(ctx, l, dir, nil)
	time.Sleep(4 * time.Second)
	c.stop()
	// Looks every 200 ms would ask 20 times; backing off (200, 400,
	// 800, 1600 ms…) asks about 4. A loaded machine asks fewer.
	if n := asked.Load(); n > 8 {
		t.Errorf("the store out of reach was asked %d times in 4 s", n)
	}
}
