package engine

import (
	"errors"
	"fmt"

	"rooda/host/git"
	"rooda/host/logging"
	"rooda/host/loop"
)

// placed is a record that names its iteration going on (runlog's
// LoopRecord): the refs of the workspace's snapshots are named after it.
type placed interface {
	Place() (run string, record int)
	KeptPartial(ref string)
}

// starts notes the workspace as it is before each agent starts, under
// refs/rooda/<run>/start/<record>, a git object that outlives a kill -9;
// an iteration that runs again on a resume is first given the workspace
// back as it was then, what its killed try left kept under
// refs/rooda/<run>/partial/<record>. The agent is told nothing of it:
// its prompt is the one it would have had.
type starts struct {
	dir   string
	ws    *git.Workspace // the loop's, whose watch spares a snapshot
	place placed
	log   *logging.Logger
	// start is the ref of the iteration going on's start, "" when it
	// is kept past its end: the one a resume put back, which the log
	// names beside its partial ref.
	start string
	// asLeft leaves the workspace as a killed try left it (--as-left).
	asLeft bool
}

// newStarts is the observer of a recorded loop's starts; nil for a loop
// without a record, which cannot be resumed.
func newStarts(dir string, ws *git.Workspace, rec Record, log *logging.Logger, asLeft bool) *starts {
	p, ok := rec.(placed)
	if !ok {
		return nil
	}
	return &starts{dir: dir, ws: ws, place: p, log: log, asLeft: asLeft}
}

// IterationStarted puts the workspace back for an iteration that runs
// again, then notes its start. Observers are told before the agent
// starts, after the record journaled that the iteration began.
func (s *starts) IterationStarted(req loop.Request) {
	if req.Replayed {
		return
	}
	run, n := s.place.Place()
	ref := func(kind string) string { return fmt.Sprintf("refs/rooda/%s/%s/%d", run, kind, n) }
	s.start = ref("start")
	switch {
	case req.Again && s.asLeft:
		s.log.Infof("Iteration %d: runs again on the workspace as its killed try left it (--as-left)", req.Iteration)
	case req.Again:
		s.putBack(req.Iteration, ref("start"), ref("partial"))
		s.start = ""
	}
	// One commit may serve several iterations' starts: its message names
	// none.
	if _, _, err := s.ws.Snapshot(ref("start"), "rooda: the workspace as an iteration of run "+run+" began"); err != nil {
		s.log.Warnf("Iteration %d: cannot note the workspace as it begins (a resume could not put it back): %v", req.Iteration, err)
	}
}

// putBack gives an iteration that runs again the workspace it began
// with, and says where what its killed try left is kept.
func (s *starts) putBack(n int, start, partial string) {
	err := git.Restore(s.dir, start, partial)
	switch {
	case err == nil:
		s.place.KeptPartial(partial)
		s.log.Infof("Iteration %d: the workspace is put back as it was when the iteration began; what its killed try left is kept in %s (what it changed: git diff %s %s)", n, partial, start, partial)
	case errors.Is(err, git.ErrNotInGit):
		s.log.Infof("Iteration %d: runs again on the workspace as its killed try left it: outside git, rooda keeps no snapshot to put back", n)
	case errors.Is(err, git.ErrNoStart):
		s.log.Infof("Iteration %d: the workspace could not be put back as it was when the iteration began: %v; the agent starts from the workspace as it is", n, err)
	default:
		s.log.Warnf("Iteration %d: the workspace could not be put back as it was when the iteration began: %v; the agent starts from the workspace as it is", n, err)
	}
}

// IterationFinished drops the start of an iteration that ended: only
// one in flight runs again. One an interrupt cut short is in flight for
// a resume, and keeps it.
func (s *starts) IterationFinished(it *loop.Iteration) {
	if it.Replayed || it.Outcome == loop.OutcomeInterrupted || s.start == "" {
		return
	}
	if err := s.ws.DropRef(s.start); err != nil {
		s.log.Debugf("Iteration %d: %v", it.Number, err)
	}
}

// end removes, as the loop ends, the directories of the run's refs that
// the starts dropped left empty.
func (s *starts) end() {
	run, _ := s.place.Place()
	git.PruneRefDirs(s.dir, run)
}
