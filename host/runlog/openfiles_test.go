package runlog

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"rooda/host/journal"
	"rooda/host/loop"
)

// TestARecordLeavesNoFileOpen: an iteration's files are held open from
// their writes until the end that names them is forced to the disk
// (journal.Writer.AppendSyncedSoon), and then closed; those of an
// iteration an interrupt cut short, and of one whose loop ended before
// it did, are closed too, with no end to force.
func TestARecordLeavesNoFileOpen(t *testing.T) {
	r, l := startedLoop(t)
	for n, outcome := range []loop.Outcome{loop.OutcomeContinue, loop.OutcomeInterrupted} {
		l.IterationStarted(loop.Request{Iteration: n + 1, Prompt: "p"})
		l.IterationFinished(&loop.Iteration{Number: n + 1, Prompt: "p", Outcome: outcome})
	}
	if open := openBelow(t, iterationDir(r.Dir(), 2)); len(open) != 0 {
		t.Errorf("an interrupted iteration's files are held open: %q", open)
	}
	l.IterationStarted(loop.Request{Iteration: 3, Prompt: "p"})
	if open := openBelow(t, iterationDir(r.Dir(), 3)); len(open) != 1 || filepath.Base(open[0]) != promptName {
		t.Errorf("an iteration going on holds %q open, want its prompt alone", open)
	}
	l.LoopFinished(loop.Result{Status: loop.Interrupted})
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	if open := openBelow(t, filepath.Join(r.Dir(), "iterations")); len(open) != 0 {
		t.Errorf("files still open once the record was forced: %q", open)
	}
}

// startedLoop is a new run's record and its loop, started.
func startedLoop(t *testing.T) (*Recorder, *LoopRecord) {
	t.Helper()
	r, err := Start(t.TempDir(), "build", nil, 0, "")
	if err != nil {
		t.Fatal(err)
	}
	settled(t, r)
	l := r.NewLoop("", journal.Key{})
	l.LoopStarted("build", nil, nil, nil)
	return r, l
}

// openBelow are the files under dir that this process holds open.
func openBelow(t *testing.T, dir string) []string {
	t.Helper()
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip("no /proc/self/fd here")
	}
	var open []string
	for _, fd := range fds {
		target, err := os.Readlink(filepath.Join("/proc/self/fd", fd.Name()))
		if err == nil && strings.HasPrefix(target, dir+string(filepath.Separator)) {
			open = append(open, target)
		}
	}
	return open
}

// TestAPromptReplacedIsWrittenAgain: a prompt's file an agent replaced
// while it ran (a git stash and its pop put back another file) is
// written again as the agent was given it, and that is the file the
// iteration's end names and forces.
func TestAPromptReplacedIsWrittenAgain(t *testing.T) {
	r, l := startedLoop(t)
	l.IterationStarted(loop.Request{Iteration: 1, Prompt: "the prompt"})
	path := filepath.Join(iterationDir(r.Dir(), 1), promptName)
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("another"), 0o600); err != nil {
		t.Fatal(err)
	}
	l.IterationFinished(&loop.Iteration{Number: 1, Prompt: "the prompt", Outcome: loop.OutcomeContinue})
	if data, err := os.ReadFile(path); err != nil || string(data) != "the prompt" {
		t.Errorf("the prompt's file holds %q (%v), want the prompt given", data, err)
	}
}
