package runlog

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"rooda/host/journal"
	"rooda/host/loop"
)

// TestShowBoundsItsIterations: runs show writes a line per iteration, and
// of a run of more than listLimit iterations its last ones, saying how
// many it left out.
func TestShowBoundsItsIterations(t *testing.T) {
	dir := t.TempDir()
	r, err := Start(dir, "build", nil, 0, "")
	if err != nil {
		t.Fatal(err)
	}
	settled(t, r)
	l := r.NewLoop("", journal.Key{})
	l.LoopStarted("build", nil, nil, nil)
	total := listLimit + 2
	for n := 1; n <= total; n++ {
		l.IterationStarted(loop.Request{Iteration: n, Prompt: "p"})
		l.IterationFinished(&loop.Iteration{Number: n, Prompt: "p", Outcome: loop.OutcomeContinue, Duration: 2 * time.Second})
	}
	var shown strings.Builder
	if err := WriteRun(&shown, dir, filepath.Base(r.Dir()), false); err != nil {
		t.Fatal(err)
	}
	out := shown.String()
	if !strings.Contains(out, "\nThe first 2 iterations are left out; runs show ID --iteration N shows any of them.\nITERATION ") {
		t.Errorf("runs show does not say it left iterations out:\n%s", out)
	}
	for n := 1; n <= total; n++ {
		line := fmt.Sprintf("\n%-11dcontinue  -      2s", n)
		if shownLine := strings.Contains(out, line); shownLine != (n > 2) {
			t.Errorf("iteration %d shown: %t, want %t", n, shownLine, n > 2)
		}
	}
}
