package session

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"rooda/host/journal"
	"rooda/host/worktree"
)

// makeWorktree makes the worktree t asks for, the call at key of a
// durable run. Its start is journaled first, and durably: a run cut short
// between git making its branch and the journal's entry of the worktree
// leaves a branch its resume would otherwise refuse as already there. A
// resume that finds that start, and no end, takes back what the cut-short
// make left.
func (s *Session) makeWorktree(ctx context.Context, set *worktree.Set, key journal.Key, t worktree.Worktree, base string) (*worktree.Worktree, error) {
	if t.Branch == "" {
		t.Branch = worktree.DefaultBranch(s.worktreeRunID(), t.Name)
	}
	t.Path = set.Path(t.Name)
	if book := s.book(); book != nil {
		if _, ok := book.Began(key, 0); ok {
			return s.takeBackWorktree(ctx, set, t, base, true)
		}
	}
	if s.rec != nil {
		s.rec.Journal(journal.Entry{Kind: journal.Began, Key: key, Op: "worktree", What: t.Name}, true)
	}
	return set.Add(ctx, t.Name, t.Branch, base, t.Keep)
}

// takeBackWorktree takes back, on a resume, the worktree t the run made
// (or was making: halfMade) before it was cut short, saying in the log
// what was made again and what work is gone.
func (s *Session) takeBackWorktree(ctx context.Context, set *worktree.Set, t worktree.Worktree, base string, halfMade bool) (*worktree.Worktree, error) {
	wt, how, err := set.Restore(ctx, t, base, halfMade)
	if err != nil {
		return nil, err
	}
	switch {
	case how == worktree.FromBranch && !halfMade:
		s.Log().Warnf("resuming: worktree %s was gone (%s); made again from its branch %s, with its commits", t.Name, t.Path, t.Branch)
	case how == worktree.FromBranch:
		s.Log().Infof("resuming: worktree %s was being made when the run was cut short; made from its branch %s", t.Name, t.Branch)
	case how == worktree.Afresh && !halfMade:
		s.Log().Warnf("resuming: worktree %s and its branch %s were gone; made afresh from %s: the work of the iterations that ran in it before the run was cut short is gone", t.Name, t.Branch, orNone(base, base != ""))
		s.mu.Lock()
		if s.lostWork == nil {
			s.lostWork = map[string]string{}
		}
		s.lostWork[wt.Path] = t.Name
		s.mu.Unlock()
	}
	return wt, nil
}

// sayLostWork names, for a loop at key resumed in a worktree made afresh
// (its branch was gone), the iterations whose work went with the branch:
// their journal's answers stand, but what they committed is not in the
// worktree, nor in what is merged from it.
func (s *Session) sayLostWork(key journal.Key, wt *worktree.Worktree, procedure string) {
	book := s.book()
	if wt == nil || book == nil {
		return
	}
	s.mu.Lock()
	name, lost := s.lostWork[wt.Path]
	s.mu.Unlock()
	if !lost {
		return
	}
	var gone []string
	for n := 1; ; n++ {
		if _, ok := book.Ended(key, n); !ok {
			break
		}
		gone = append(gone, fmt.Sprint(n))
	}
	if len(gone) > 0 {
		s.Log().Warnf("resuming: the work of iteration(s) %s of %s in worktree %s is gone with its branch: they are not run again, and what they committed will not be merged", strings.Join(gone, ", "), procedure, name)
	}
}

// RetryError is a resume that failed where trying again may succeed (git
// could not make a worktree again: a lock left, a directory in the way,
// a full disk): the run stays cut short, to be resumed once that is
// mended, never ended as an error.
type RetryError struct {
	Err error
	Run string
}

func (e *RetryError) Error() string {
	return fmt.Sprintf("%v\nthe run is left as it was, to be resumed again once that is mended: rooda runs resume %s", e.Err, e.Run)
}

func (e *RetryError) Unwrap() error { return e.Err }

// ExitCode is a configuration error's, as a refused resume's.
func (e *RetryError) ExitCode() int { return 1 }

// resumeCanRetry is err, a worktree() that failed, as a RetryError when
// the run is a resume and the failure is not the script's nor a stop.
func (s *Session) resumeCanRetry(err error) error {
	if s.book() == nil || s.ctx.Err() != nil || errors.As(err, new(worktree.NameError)) {
		return err
	}
	return &RetryError{Err: err, Run: s.runID()}
}
