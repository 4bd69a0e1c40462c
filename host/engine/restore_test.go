package engine

import (
	"bytes"
	"strings"
	"testing"

	"rooda/host/git"
	"rooda/host/logging"
	"rooda/host/loop"
)

// place is a record's place for starts: run r, record 2.
type place struct{ kept string }

func (p *place) Place() (string, int)   { return "r", 2 }
func (p *place) KeptPartial(ref string) { p.kept = ref }

// TestRunAgainOutsideGit: an iteration that runs again outside git is
// said to start from the workspace as its killed try left it, as a fact
// of the workspace, not a warning: there was no snapshot to put back.
func TestRunAgainOutsideGit(t *testing.T) {
	dir := t.TempDir()
	var out bytes.Buffer
	ws := git.NewWorkspaceIn(dir)
	defer ws.Close()
	p := &place{}
	s := &starts{dir: dir, ws: ws, place: p, log: logging.New(&out, logging.Info)}
	s.IterationStarted(loop.Request{Iteration: 2, Again: true})
	if got := out.String(); !strings.Contains(got, "Iteration 2: runs again on the workspace as its killed try left it: outside git, rooda keeps no snapshot to put back") || strings.Contains(got, "WARN") || p.kept != "" {
		t.Errorf("the log:\n%s\npartial kept: %q", got, p.kept)
	}
}
