package runlog

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"rooda/host/journal"
	"rooda/host/loop"
)

// TestLimitWaitIsRecorded: an iteration that waited for a usage limit
// keeps the wait in meta.json as waited, apart from its duration, and
// runs show says so; one that did not wait writes no waited at all.
func TestLimitWaitIsRecorded(t *testing.T) {
	r, err := Start(t.TempDir(), "build", nil, 0, "")
	if err != nil {
		t.Fatal(err)
	}
	settled(t, r)
	l := r.NewLoop("", journal.Key{})
	for _, waited := range []time.Duration{90 * time.Second, 0} {
		l.IterationStarted(loop.Request{Iteration: 1, Prompt: "p"})
		l.IterationFinished(&loop.Iteration{Number: 1, Prompt: "p", Outcome: loop.OutcomeContinue, Duration: 2 * time.Second, Waited: waited})
	}
	m, err := ReadMeta(r.Dir(), 1)
	if err != nil || m.Waited != 90 || m.Duration != 2 {
		t.Errorf("meta %+v, %v; want waited 90, duration 2", m, err)
	}
	var shown strings.Builder
	if err := WriteIteration(&shown, r.Dir(), 1, false); err != nil || !strings.Contains(shown.String(), "Waited for a limit or an outage: 1m30s\n") {
		t.Errorf("runs show: %q, %v", shown.String(), err)
	}
	data, _ := os.ReadFile(filepath.Join(iterationDir(r.Dir(), 2), "meta.json"))
	if strings.Contains(string(data), "waited") {
		t.Errorf("an iteration that did not wait records waited: %s", data)
	}
}
