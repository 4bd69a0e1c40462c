package runlog

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"rooda/host/journal"
	"rooda/host/loop"
	"rooda/host/process"
)

// crashed records a run of two iterations that ended and a third in
// flight, then leaves it as a rooda killed outright leaves its record:
// running, by a process that is gone.
func crashed(t *testing.T) (dir, id string) {
	dir = t.TempDir()
	r, err := Start(dir, "build", []string{"rooda", "run", "build"}, 0, "nightly")
	if err != nil {
		t.Fatal(err)
	}
	settled(t, r)
	l := r.NewLoop("", journal.Key{Thread: "main", Seq: 1})
	for n := 1; n <= 3; n++ {
		l.IterationStarted(loop.Request{Iteration: n, Prompt: "prompt"})
		if n < 3 {
			l.IterationFinished(&loop.Iteration{Number: n, Prompt: "prompt", Outcome: loop.OutcomeContinue, Result: loopResult("out"), Spent: loop.Spend{CostUSD: 0.5, Costed: true}})
		}
	}
	killed(r)
	return dir, r.ID()
}

// TestResumeTakesTheRecordBack: a crashed run resumes: its journal
// answers the iterations that ended, with their outputs and spend; the
// in-flight one runs again in the record it had; the record says when it
// was resumed and by whom, and the name it was started under finds it.
// The lock refuses a second resume while the first holds the record,
// saying that it is being resumed, and by which process.
func TestResumeTakesTheRecordBack(t *testing.T) {
	dir, id := crashed(t)
	if run, found, err := Named(dir, "nightly"); err != nil || !found || run.ID != id {
		t.Fatalf("Named: %v %v %v", run.ID, found, err)
	}
	if got, err := LastResumable(dir); err != nil || got != id {
		t.Fatalf("LastResumable: %q, %v", got, err)
	}
	r, err := Resume(dir, id, "build")
	if err != nil {
		t.Fatal(err)
	}
	settled(t, r)
	if _, err := Resume(dir, id, "build"); err == nil || !strings.Contains(err.Error(), "is being resumed by pid") {
		t.Errorf("a second resume: %v", err)
	}
	l := r.NewLoop("", journal.Key{Thread: "main", Seq: 1})
	replay := l.Replay()
	rep := replay(2)
	if !rep.Ended || string(rep.Reply.Output) != "out" || rep.Prompt != "prompt" || rep.Reply.Spent.CostUSD != 0.5 {
		t.Errorf("iteration 2 from the journal: %+v", rep)
	}
	if rep := replay(3); rep.Ended || !rep.Again {
		t.Errorf("the iteration in flight: %+v", rep)
	}
	l.IterationStarted(loop.Request{Iteration: 3, Prompt: "prompt", Again: true})
	l.IterationFinished(&loop.Iteration{Number: 3, Prompt: "prompt", Outcome: loop.OutcomeSuccess})
	m, err := ReadMeta(r.Dir(), 3)
	if err != nil || !m.RanAgain || m.Iteration != 3 {
		t.Errorf("meta of the iteration run again: %+v, %v", m, err)
	}
	run, _ := ReadRun(dir, id)
	if run.Status != "running" || run.PID != os.Getpid() || len(run.Resumes) != 1 || run.RunName != "nightly" {
		t.Errorf("run.json after the resume: %+v", run)
	}
}

// TestDamagedOutputIsNotReplayed: an iteration whose output changed since
// the journal named it is not answered otherwise than it ended: its
// replay is an error naming the file.
func TestDamagedOutputIsNotReplayed(t *testing.T) {
	dir, id := crashed(t)
	os.WriteFile(filepath.Join(dir, id, iterationPart(1, outputName)), []byte("changed"), 0o644)
	r, err := Resume(dir, id, "build")
	if err != nil {
		t.Fatal(err)
	}
	settled(t, r)
	rep := r.NewLoop("", journal.Key{Thread: "main", Seq: 1}).Replay()(1)
	if rep.Err == nil || !strings.Contains(rep.Err.Error(), "output.txt: it does not match the journal") {
		t.Errorf("replay of a changed output: %+v", rep)
	}
}

// loseInPowerCut empties the file at path as a power loss leaves one its fsync
// never reached: its time no newer than the end that named it, however
// long the test took to get there.
func loseInPowerCut(t *testing.T, path string) {
	t.Helper()
	long := time.Now().Add(-time.Hour)
	if err := os.Truncate(path, 0); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, long, long); err != nil {
		t.Fatal(err)
	}
}

// TestResumeRunsAgainAnEndWhoseFilesWereLost: the journal's last end
// whose output did not reach the disk (a power loss as it ended leaves
// it empty: its fsync follows the entry, journal.Writer.AppendSyncedSoon)
// is cut from the journal as the run resumes, and its iteration runs
// again, said in the warning, with the ends after it; the ends before it
// are replayed. One gone (as likely removed as lost) or changed otherwise
// is refused, saying how to run it again: --force. Once the run wrote a
// call after it, an emptied file is not a power loss: the replay refuses
// it as before.
func TestResumeRunsAgainAnEndWhoseFilesWereLost(t *testing.T) {
	dir, id := crashed(t)
	loseInPowerCut(t, filepath.Join(dir, id, iterationPart(2, outputName)))
	r, err := Resume(dir, id, "build")
	if err != nil {
		t.Fatal(err)
	}
	settled(t, r)
	if w := r.Warning(); !strings.Contains(w, iterationPart(2, "")) || !strings.Contains(w, "runs again") {
		t.Errorf("warning: %q", w)
	}
	replay := r.NewLoop("", journal.Key{Thread: "main", Seq: 1}).Replay()
	if rep := replay(1); !rep.Ended || string(rep.Reply.Output) != "out" {
		t.Errorf("iteration 1, replayed: %+v", rep)
	}
	if rep := replay(2); rep.Ended || rep.Err != nil {
		t.Errorf("iteration 2, whose output was lost: %+v", rep)
	}
	entries, _, err := journal.Read(filepath.Join(dir, id, journal.Name))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Kind == journal.Ended && e.N == 2 {
			t.Errorf("the journal still ends iteration 2: %+v", entries)
		}
	}

	t.Run("two ends", func(t *testing.T) {
		dir, id := crashed(t)
		for _, n := range []int{1, 2} {
			loseInPowerCut(t, filepath.Join(dir, id, iterationPart(n, outputName)))
		}
		r, err := Resume(dir, id, "build")
		if err != nil {
			t.Fatal(err)
		}
		settled(t, r)
		if w := r.Warning(); !strings.Contains(w, iterationPart(1, "")+" did not all reach the disk") || !strings.Contains(w, "so does the one that ended after it") {
			t.Errorf("warning: %q", w)
		}
		replay := r.NewLoop("", journal.Key{Thread: "main", Seq: 1}).Replay()
		if rep := replay(1); rep.Ended || rep.Err != nil {
			t.Errorf("iteration 1, whose output was lost: %+v", rep)
		}
	})

	t.Run("changed", func(t *testing.T) {
		dir, id := crashed(t)
		if err := os.WriteFile(filepath.Join(dir, id, iterationPart(2, outputName)), []byte("changed"), 0o644); err != nil {
			t.Fatal(err)
		}
		r, err := Resume(dir, id, "build")
		if err != nil {
			t.Fatal(err)
		}
		settled(t, r)
		rep := r.NewLoop("", journal.Key{Thread: "main", Seq: 1}).Replay()(2)
		if r.Warning() != "" || rep.Err == nil || !strings.Contains(rep.Err.Error(), "it does not match the journal (changed since the run wrote it) (put it back") {
			t.Errorf("warning %q, replay of a changed output: %+v", r.Warning(), rep)
		}
	})

	t.Run("gone", func(t *testing.T) {
		dir, id := crashed(t)
		os.Remove(filepath.Join(dir, id, iterationPart(2, outputName)))
		r, err := Resume(dir, id, "build")
		if err != nil {
			t.Fatal(err)
		}
		settled(t, r)
		rep := r.NewLoop("", journal.Key{Thread: "main", Seq: 1}).Replay()(2)
		if rep.Err == nil || !strings.Contains(rep.Err.Error(), "no such file or directory (put it back and resume again; if it was lost, a resume with --force runs the iteration again)") {
			t.Errorf("replay of an output gone, not forced: %+v", rep)
		}
		r.lock.Close()
		r, err = ResumeWith(dir, id, "build", ResumeOptions{Force: true})
		if err != nil {
			t.Fatal(err)
		}
		settled(t, r)
		if rep := r.NewLoop("", journal.Key{Thread: "main", Seq: 1}).Replay()(2); rep.Ended || rep.Err != nil || !strings.Contains(r.Warning(), "runs again") {
			t.Errorf("forced: warning %q, replay %+v", r.Warning(), rep)
		}
	})

	t.Run("emptied since", func(t *testing.T) {
		dir, id := crashed(t)
		output := filepath.Join(dir, id, iterationPart(2, outputName))
		os.Truncate(output, 0)
		later := time.Now().Add(time.Minute)
		if err := os.Chtimes(output, later, later); err != nil {
			t.Fatal(err)
		}
		r, err := Resume(dir, id, "build")
		if err != nil {
			t.Fatal(err)
		}
		settled(t, r)
		rep := r.NewLoop("", journal.Key{Thread: "main", Seq: 1}).Replay()(2)
		if r.Warning() != "" || rep.Err == nil || !strings.Contains(rep.Err.Error(), "it does not match the journal (changed since the run wrote it) (put it back as the run wrote it") {
			t.Errorf("warning %q, replay of an output emptied after its end: %+v", r.Warning(), rep)
		}
	})

	t.Run("a call after it, then another resume", func(t *testing.T) {
		dir, id := crashed(t)
		r, err := Resume(dir, id, "build")
		if err != nil {
			t.Fatal(err)
		}
		settled(t, r)
		// A call written after the end, not forced to the disk: it is
		// cut with the end, and made again.
		r.Journal(journal.Entry{Kind: journal.Call, Key: journal.Key{Thread: "main", Seq: 2}, Op: "run"}, false)
		killed(r)
		loseInPowerCut(t, filepath.Join(dir, id, iterationPart(1, outputName)))
		r, err = Resume(dir, id, "build")
		if err != nil {
			t.Fatal(err)
		}
		settled(t, r)
		if !strings.Contains(r.Warning(), "so does the one that ended after it") {
			t.Errorf("warning %q", r.Warning())
		}
		if _, ok := r.Book().Call(journal.Key{Thread: "main", Seq: 2}); ok {
			t.Error("the call after the cut end is still answered from the journal")
		}
		// Cut short again: the record of iteration 2, which ended but
		// whose entries the cut took, is accounted for (Dropped).
		killed(r)
		if r, err = Resume(dir, id, "build"); err != nil {
			t.Fatalf("a second resume after the cut: %v", err)
		}
		settled(t, r)
	})
}

// TestElapsedBeforeAResume: the time a run went on before it was cut
// short is from its start, and from each resume, to the last entry
// written before the next.
func TestElapsedBeforeAResume(t *testing.T) {
	start := time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)
	at := func(d time.Duration) int64 { return start.Add(d).UnixMilli() }
	run := Run{Started: start, Resumes: []Resumption{{At: start.Add(time.Hour)}}}
	entries := []journal.Entry{
		{Kind: journal.Began, At: at(time.Minute)},
		{Kind: journal.Ended, At: at(10 * time.Minute)},
		{Kind: journal.Resumed, At: at(time.Hour)},
		{Kind: journal.Ended, At: at(time.Hour + 5*time.Minute)},
	}
	if got := elapsed(run, entries); got != 15*time.Minute {
		t.Errorf("elapsed %s, want 15m (10m, then 5m after the resume)", got)
	}
}

// TestRunThatEndedIsNotResumable: a run that ended says how, and is not
// resumed.
func TestRunThatEndedIsNotResumable(t *testing.T) {
	dir := t.TempDir()
	r, err := Start(dir, "build", nil, 0, "")
	if err != nil {
		t.Fatal(err)
	}
	settled(t, r)
	r.Finish(loop.MaxIters)
	r.lock.Close()
	_, err = Resume(dir, r.ID(), "build")
	if err == nil || !strings.Contains(err.Error(), "has ended (max-iters, exit code 2): only a run that was cut short") {
		t.Errorf("resume of a run that ended: %v", err)
	}
}

func loopResult(out string) process.Result {
	return process.Result{Output: []byte(out), Total: int64(len(out))}
}

// TestRemovedJournalIsWrittenAgain: a record an agent removed (git clean)
// gets its journal back whole at its next write, and goes on appending.
func TestRemovedJournalIsWrittenAgain(t *testing.T) {
	dir := t.TempDir()
	r, err := Start(dir, "build", nil, 0, "")
	if err != nil {
		t.Fatal(err)
	}
	settled(t, r)
	r.Journal(journal.Entry{Kind: journal.Call, Key: journal.Key{Thread: "main", Seq: 1}, Op: "getenv", What: "HOME"}, false)
	os.RemoveAll(r.Dir())
	r.Journal(journal.Entry{Kind: journal.Call, Key: journal.Key{Thread: "main", Seq: 2}, Op: "now"}, true)
	entries, _, err := journal.Read(filepath.Join(r.Dir(), journal.Name))
	if err != nil || len(entries) != 2 || entries[0].Op != "getenv" || entries[1].Op != "now" {
		t.Errorf("journal after the record was removed: %+v, %v", entries, err)
	}
}

// TestReplayAnswersEachIterationItsOwn: the answers decoded ahead of the
// loop are each iteration's own, in order, past the window of them too.
func TestReplayAnswersEachIterationItsOwn(t *testing.T) {
	dir := t.TempDir()
	r, err := Start(dir, "build", []string{"rooda", "run", "build"}, 0, "")
	if err != nil {
		t.Fatal(err)
	}
	settled(t, r)
	l := r.NewLoop("", journal.Key{Thread: "main", Seq: 1})
	const ended = aheadWindow + 9 // past the window
	for n := 1; n <= ended+1; n++ {
		l.IterationStarted(loop.Request{Iteration: n, Prompt: fmt.Sprint("prompt ", n)})
		if n <= ended {
			l.IterationFinished(&loop.Iteration{Number: n, Prompt: fmt.Sprint("prompt ", n), Outcome: loop.OutcomeContinue, Result: loopResult(fmt.Sprint("out ", n)), Spent: loop.Spend{CostUSD: float64(n), Costed: true}})
		}
	}
	killed(r)
	resumed, err := Resume(dir, r.ID(), "build")
	if err != nil {
		t.Fatal(err)
	}
	settled(t, resumed)
	replay := resumed.NewLoop("", journal.Key{Thread: "main", Seq: 1}).Replay()
	for n := 1; n <= ended; n++ {
		rep := replay(n)
		if !rep.Ended || string(rep.Reply.Output) != fmt.Sprint("out ", n) || rep.Prompt != fmt.Sprint("prompt ", n) || rep.Reply.Spent.CostUSD != float64(n) {
			t.Errorf("iteration %d: %+v", n, rep)
		}
	}
	if rep := replay(ended + 1); rep.Ended || !rep.Again {
		t.Errorf("the iteration in flight: %+v", rep)
	}
}

// TestResumedLoopKeepsItsName: a resumed run's loop, found again by its
// key, keeps the name its record gives it, whatever it is named as it
// starts again: which of two loops of one name parallel() told apart
// ("p#2") was the order they started in, which a resume need not repeat.
// LoopName gives the recorded name, to name the loop's lines by it.
func TestResumedLoopKeepsItsName(t *testing.T) {
	dir := t.TempDir()
	r, err := Start(dir, "parallel", nil, 0, "")
	if err != nil {
		t.Fatal(err)
	}
	settled(t, r)
	first, second := journal.Key{Thread: "main/1", Seq: 1}, journal.Key{Thread: "main/2", Seq: 1}
	if _, ok := r.LoopName(first); ok {
		t.Errorf("a run not resumed has a recorded name")
	}
	r.NewLoop("p", first).LoopStarted("p", nil, []string{"agent"}, nil)
	r.NewLoop("p#2", second).LoopStarted("p", nil, []string{"agent"}, nil)
	killed(r)

	resumed, err := Resume(dir, r.ID(), "parallel")
	if err != nil {
		t.Fatal(err)
	}
	settled(t, resumed)
	if name, ok := resumed.LoopName(second); !ok || name != "p#2" {
		t.Errorf("LoopName of the second loop: %q, %v", name, ok)
	}
	if _, ok := resumed.LoopName(journal.Key{Thread: "main/3", Seq: 1}); ok {
		t.Errorf("a loop the record does not have has a recorded name")
	}
	// The other order this time.
	resumed.NewLoop("p", second).LoopStarted("p", nil, []string{"agent"}, nil)
	resumed.NewLoop("p#1", first).LoopStarted("p", nil, []string{"agent"}, nil)
	resumed.Finish(loop.Success)
	run, err := ReadRun(dir, r.ID())
	if err != nil || len(run.Loops) != 2 || run.Loops[0].Name != "p" || run.Loops[1].Name != "p#2" {
		t.Errorf("run.json's loops after the resume: %+v, %v", run.Loops, err)
	}
}

// hangGuard bounds a wait that only a bug makes long.
const hangGuard = 20 * time.Second

// TestAheadKeepsToItsWindow: the answers are decoded ahead of the loop
// at most a window's worth past the last it took, whatever the loop's
// pace (here it takes the first, then waits until the window is full),
// and each is its own answer, once.
func TestAheadKeepsToItsWindow(t *testing.T) {
	const count = 5*aheadWindow + 3
	var decoded atomic.Int64 // the highest answer decoded, from 1
	a := newAhead(count, func(i int) loop.Replayed {
		for n := decoded.Load(); n < int64(i+1) && !decoded.CompareAndSwap(n, int64(i+1)); n = decoded.Load() {
		}
		return loop.Replayed{Prompt: fmt.Sprint("answer ", i+1)}
	})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for n := 1; n <= count; n++ {
			rep, ok := a.take(n)
			if !ok || rep.Prompt != fmt.Sprint("answer ", n) {
				t.Errorf("answer %d: %q, %t", n, rep.Prompt, ok)
				return
			}
			if high := decoded.Load(); high > int64(n+aheadWindow) { // answers below n+window may be decoded
				t.Errorf("answer %d taken, %d decoded: past the window", n, high)
			}
			if n == 1 {
				for deadline := time.Now().Add(hangGuard); decoded.Load() < aheadWindow && time.Now().Before(deadline); {
					time.Sleep(time.Millisecond)
				}
			}
		}
		if _, ok := a.take(count + 1); ok {
			t.Error("an answer past the last")
		}
	}()
	select {
	case <-done:
	case <-time.After(hangGuard):
		t.Fatal("the loop waits for an answer that is never decoded")
	}
}
