package fleet

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"rooda/host/journal"
)

// branchPush pushes the branch of a run's clone, with what its agents
// committed, to the run's repository as the run goes: at each iteration's
// beginning and end, before the journal's entry that says so reaches the
// store (recordCopy's beforeJournal). With it go the refs rooda keeps of
// the record, refs/rooda/ID/… (docs/reliability.md, "Resuming a run"):
// the start of the iteration in flight, from which a resume elsewhere
// puts the workspace back as the iteration began, uncommitted files
// included.
type branchPush struct {
	dir string // the clone
	run Run
	// expected is the branch's commit on the remote as this worker last
	// saw or left it ("" for none): a push forces the run's own branch
	// only from there (--force-with-lease), so a worker that lost the
	// run cannot push over its taker's commits.
	expected string
	// waiting is since when a piece ending with an iteration's beginning
	// has waited for its start's ref, which rooda writes just after it.
	waiting time.Time
}

// startRefWait bounds the wait for an iteration's start ref: rooda notes
// it at once, unless it cannot (outside git), and the journal must go on.
const startRefWait = 2 * time.Second

func newBranchPush(ctx context.Context, dir string, run Run) *branchPush {
	return &branchPush{dir: dir, run: run, expected: remoteBranch(ctx, dir, run)}
}

// beforeJournal pushes, before a piece of the journal of record id that
// begins or ends an iteration is uploaded: a piece whose last entry
// begins one waits (errNotYet) for that iteration's start ref, for a
// while.
func (p *branchPush) beforeJournal(ctx context.Context, id string, entries []journal.Entry) error {
	edge := false
	for _, e := range entries {
		edge = edge || e.Kind == journal.Began || e.Kind == journal.Ended
	}
	if !edge {
		return nil
	}
	last := entries[len(entries)-1]
	if last.Kind == journal.Began && !p.hasRef(ctx, startRef(id, last.Record)) {
		if p.waiting.IsZero() {
			p.waiting = time.Now()
		}
		if time.Since(p.waiting) < startRefWait {
			return errNotYet
		}
	}
	p.waiting = time.Time{}
	return p.push(ctx, id)
}

// startRef is the ref of record id's iteration n's start, as rooda's
// engine names it (host/engine/restore.go).
func startRef(id string, n int) string { return fmt.Sprintf("refs/rooda/%s/start/%d", id, n) }

func (p *branchPush) hasRef(ctx context.Context, ref string) bool {
	return git(ctx, p.dir, "rev-parse", "--verify", "--quiet", ref) == nil
}

// push pushes the run's branch, forced from the commit this worker
// expects there only, and record id's refs as they are here (those
// dropped here are deleted there). The push is atomic: a branch update
// refused (another worker pushed since) refuses the refs' too, so that
// a worker that lost the run neither forces nor prunes its taker's.
func (p *branchPush) push(ctx context.Context, id string) error {
	branch := "refs/heads/" + Branch(p.run)
	head, err := gitOutput(ctx, p.dir, "rev-parse", "--verify", branch)
	if err != nil {
		return err
	}
	args := []string{"push", "--quiet", "--atomic", "--prune", "--force-with-lease=" + branch + ":" + p.expected, "origin", branch + ":" + branch}
	if id != "" {
		args = append(args, "+refs/rooda/"+id+"/*:refs/rooda/"+id+"/*")
	}
	if err := git(ctx, p.dir, args...); err != nil {
		if strings.Contains(err.Error(), "stale info") {
			err = fmt.Errorf("%w (%v)", errPushedOver, err)
		}
		return fmt.Errorf("pushing %s: %w", Branch(p.run), err)
	}
	p.expected = strings.TrimSpace(head)
	return nil
}

// errPushedOver is a push refused because the remote's branch is no
// longer where this worker last saw or left it: another worker pushed
// it since, which only a worker that took the run over does. The run is
// as good as lost: pushing on would fail at every look, and the run end
// with its commits here alone.
var errPushedOver = errors.New("another worker pushed the run's branch since this one last did")

// fetchRecordRefs fetches the refs rooda keeps of record id from the
// run's repository into the clone at dir: the start of the iteration in
// flight, for the resume to put the workspace back as it began.
func fetchRecordRefs(ctx context.Context, dir, id string) error {
	return git(ctx, dir, "fetch", "--quiet", "origin", "+refs/rooda/"+id+"/*:refs/rooda/"+id+"/*")
}

// journalSize is the size of the journal of record id in runs, 0 if it
// has none.
func journalSize(runs string, id string) int64 {
	info, err := os.Stat(filepath.Join(runs, id, journal.Name))
	if err != nil {
		return 0
	}
	return info.Size()
}
