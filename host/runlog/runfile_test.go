package runlog

import (
	"os"
	"path/filepath"
	"testing"

	"rooda/host/journal"
	"rooda/host/loop"
)

// TestLaterFileWritesTheNewest: what is handed over last is what the
// file holds once the writer is done.
func TestLaterFileWritesTheNewest(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.json")
	f := newLaterFile(path)
	for _, s := range []string{"one", "two", "three"} {
		f.put([]byte(s))
	}
	if err := f.wait(); err != nil {
		t.Fatal(err)
	}
	if data, err := os.ReadFile(path); err != nil || string(data) != "three" {
		t.Fatalf("the file holds %q (%v), want the newest, three", data, err)
	}
}

// TestLaterFileLeavesARemovedRecordRemoved: a record removed while its
// run goes on is not made again by the writer, which would hide the
// removal from Recorder.mend, and that is no failure of it.
func TestLaterFileLeavesARemovedRecordRemoved(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	f := newLaterFile(filepath.Join(dir, "run.json"))
	f.put([]byte("{}"))
	if err := f.wait(); err != nil {
		t.Fatalf("a removed record's write failed: %v", err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("the writer made the removed record again: %v", err)
	}
}

// TestLaterFileSaysAWriteFailed: a write that fails is said once, by
// the wait after it.
func TestLaterFileSaysAWriteFailed(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.json")
	if err := os.Mkdir(path, 0o755); err != nil { // a rename over a directory fails
		t.Fatal(err)
	}
	f := newLaterFile(path)
	f.put([]byte("{}"))
	if err := f.wait(); err == nil {
		t.Fatal("a write that failed was not said")
	}
	if err := f.wait(); err != nil {
		t.Fatalf("the failure was said twice: %v", err)
	}
}

// TestRunJSONCountsTheIterationsOnceWaited: run.json written after the
// iterations' ends holds them all by the time Err (which a run's end
// asks) returns, though no iteration waited for it.
func TestRunJSONCountsTheIterationsOnceWaited(t *testing.T) {
	r, err := Start(t.TempDir(), "build", nil, 10, "")
	if err != nil {
		t.Fatal(err)
	}
	settled(t, r)
	l := r.NewLoop("build", journal.Key{Thread: "main", Seq: 1})
	l.LoopStarted("build", nil, []string{"agent"}, nil)
	for n := 1; n <= 5; n++ {
		l.IterationStarted(loop.Request{Prompt: "p", Iteration: n})
		l.IterationFinished(&loop.Iteration{Number: n, Prompt: "p", Outcome: loop.OutcomeContinue})
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	run, err := ReadRun(filepath.Dir(r.Dir()), r.ID())
	if err != nil {
		t.Fatal(err)
	}
	if run.Iterations != 5 {
		t.Fatalf("run.json counts %d iterations, want 5", run.Iterations)
	}
}

// TestLaterFileWritesAtMostOnceASecond: content handed over within
// laterEvery of the last write is put off, and the newest of it written
// by the wait that a run's end (or Err) does.
func TestLaterFileWritesAtMostOnceASecond(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.json")
	f := newLaterFile(path)
	f.put([]byte("first"))
	if err := f.wait(); err != nil {
		t.Fatal(err)
	}
	f.put([]byte("second"))
	f.put([]byte("third"))
	f.write.Wait() // what a write at once would have done by now
	if data, _ := os.ReadFile(path); string(data) != "first" {
		t.Fatalf("the file holds %q within a second of the last write, want it put off", data)
	}
	if err := f.wait(); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(path); string(data) != "third" {
		t.Fatalf("after the wait the file holds %q, want the newest, third", data)
	}
}
