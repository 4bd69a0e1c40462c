package runlog

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"rooda/host/journal"
	"rooda/host/loop"
)

// TestUnseenLoopReplaysFromTheJournal: in a loop no script sees (a YAML
// procedure's), an iteration whose agent said no promise tag is answered
// from the journal's entry alone: its output, gone since, is not read,
// and its prompt is not composed again; its spend and exit code are the
// entry's. One whose agent said a tag needs its files for its signals:
// they are read, and a changed one is still an error. A script's loop
// reads every file, as TestDamagedOutputIsNotReplayed shows. (A third
// iteration follows: the last end's files are checked as the run
// resumes, TestResumeRunsAgainAnEndWhoseFilesWereLost.)
func TestUnseenLoopReplaysFromTheJournal(t *testing.T) {
	dir := t.TempDir()
	r, err := Start(dir, "build", []string{"rooda", "run", "build"}, 0, "")
	if err != nil {
		t.Fatal(err)
	}
	settled(t, r)
	key := journal.Key{Thread: "main", Seq: 1}
	l := r.NewLoop("", key)
	for n, out := range []string{"working", "<promise>FAILURE</promise>", "working"} {
		l.IterationStarted(loop.Request{Iteration: n + 1, Prompt: "prompt"})
		res := loopResult(out)
		res.ExitCode = 3
		l.IterationFinished(&loop.Iteration{Number: n + 1, Prompt: "prompt", Outcome: loop.OutcomeFailure, Result: res, Spent: loop.Spend{CostUSD: 0.25, Costed: true}})
	}
	killed(r)
	for _, n := range []int{1, 2} {
		if err := os.WriteFile(filepath.Join(r.Dir(), iterationPart(n, outputName)), []byte("changed"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	resumed, err := Resume(dir, r.ID(), "build")
	if err != nil {
		t.Fatal(err)
	}
	settled(t, resumed)
	l = resumed.NewLoop("", key)
	l.Unseen()
	replay := l.Replay()
	rep := replay(1)
	if rep.Err != nil || !rep.Ended || !rep.NoCompose || rep.Reply.Output != nil || rep.Reply.ExitCode != 3 || rep.Reply.Spent.CostUSD != 0.25 {
		t.Errorf("iteration 1, no promise tag, from the journal alone: %+v", rep)
	}
	if rep := replay(2); rep.Err == nil || !strings.Contains(rep.Err.Error(), "output.txt: it does not match the journal") {
		t.Errorf("iteration 2, a promise tag, its changed output: %+v", rep)
	}
}
