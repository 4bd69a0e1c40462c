package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"go.starlark.net/starlark"

	"rooda/host"
	"rooda/host/journal"
	"rooda/host/logging"
	"rooda/host/runlog"
	"rooda/host/units"
	"rooda/host/worktree"
)

// Worktree makes a git worktree of the run for a script's worktree():
// under .rooda/worktrees/<run-id>/<name> on branch (rooda/<run-id>/<name>
// when ""), from base, removed as the run ends unless kept. The first
// one prunes what dead runs left. In a dry run nothing is made: the
// worktree is only named.
func (s *Session) Worktree(thread *starlark.Thread, name, branch, base string, keep bool) (*worktree.Worktree, error) {
	if s.opts.DryRun {
		// Nothing is made, and nothing asked of git: a dry run (rooda
		// info) may run where there is no repository.
		wd, _ := os.Getwd()
		if branch == "" {
			branch = worktree.DefaultBranch("<run-id>", name)
		}
		return &worktree.Worktree{Name: name, Path: filepath.Join(wd, worktree.Root, "<run-id>", name), Branch: branch, Keep: keep}, nil
	}
	set, err := s.worktreeSet(thread)
	if err != nil {
		return nil, err
	}
	ctx := host.Context(thread)
	var wt *worktree.Worktree
	made, replayed, err := journaledAt(s, thread, call{"worktree", "", name}, true, func(key journal.Key) (worktree.Worktree, error) {
		wt, err = s.makeWorktree(ctx, set, key, worktree.Worktree{Name: name, Branch: branch, Keep: keep}, base)
		if err != nil {
			return worktree.Worktree{}, err
		}
		return *wt, nil
	})
	if replayed && err == nil {
		wt, err = s.takeBackWorktree(ctx, set, made, base, false)
	}
	if err != nil {
		return nil, s.resumeCanRetry(err)
	}
	if s.rec != nil {
		s.rec.WorktreeMade(wt.Name, wt.Path, wt.Branch)
	}
	return wt, nil
}

// worktreeSet is the run's worktrees, made at the first call.
func (s *Session) worktreeSet(thread *starlark.Thread) (*worktree.Set, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.worktrees != nil {
		return s.worktrees, nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	set, err := worktree.NewSet(host.Context(thread), wd, s.worktreeRunID())
	if err != nil {
		return nil, err
	}
	s.worktrees = set
	return set, nil
}

// worktreeRunID names the run's worktrees: the record's id, else one
// made from the time and the process.
func (s *Session) worktreeRunID() string {
	if id := s.runID(); id != "" {
		return id
	}
	if s.noRecordID == "" {
		s.noRecordID = fmt.Sprintf("%s-%d", s.started.UTC().Format("20060102-150405"), os.Getpid())
	}
	return s.noRecordID
}

// Merge merges a worktree's branch into the branch the main checkout has
// out, for a script's git_merge(): plain git, aborted on a conflict;
// what the agent left uncommitted is committed first when leftovers is
// set, else left in the worktree, which the run keeps. A
// merge that fails otherwise (an interrupt stopped it, or it could not
// start) ends the script before it can decide what to do with the
// worktree: its work, not merged, is kept. In a dry run nothing is
// merged.
func (s *Session) Merge(thread *starlark.Thread, wt *worktree.Worktree, leftovers bool) (res worktree.MergeResult, ran bool, err error) {
	if s.opts.DryRun {
		s.notes().Line(logging.Info, "dry_run_merge", []any{"branch", wt.Branch}, "[dry-run] not merging: %s", wt.Branch)
		return res, false, nil
	}
	set, err := s.worktreeSet(thread)
	if err != nil {
		return res, false, err
	}
	ctx := host.Context(thread)
	res, _, err = journaledAt(s, thread, call{"git_merge", "", wt.Branch}, true, func(key journal.Key) (worktree.MergeResult, error) {
		if err := s.commitLeftovers(ctx, wt, leftovers); err != nil {
			return worktree.MergeResult{}, err
		}
		res, err := s.merge(ctx, key, set.Repo(), wt.Branch)
		res.Dirty = worktree.Uncommitted(ctx, wt.Path)
		return res, err
	})
	s.saidOfMerge(wt, res, err)
	stopped := ctx.Err() != nil
	if (err != nil || stopped) && !res.Merged && !worktree.Merged(ctx, set.Repo(), wt.Branch) {
		err = errors.Join(err, set.Keep(wt))
	}
	if stopped {
		return res, true, errors.Join(host.StopCause(ctx), err)
	}
	return res, true, err
}

// resumable reports whether run id, whose rooda is gone, can be resumed:
// its worktrees are then its resume's, as they are. The run this one
// resumes is.
func (s *Session) resumable(id string) bool {
	if s.runID() == id {
		return true
	}
	return runlog.CanResume(RunsDir(s.opts.Config), id)
}

// merge merges branch into the checkout of repo, the call at key of a
// durable run: the start of the merge is journaled first, so that a
// resume finds a merge killed midway and undoes it before merging again
// (or takes it as done, when it got as far as its commit).
func (s *Session) merge(ctx context.Context, key journal.Key, repo, branch string) (worktree.MergeResult, error) {
	if book := s.book(); book != nil {
		if began, ok := book.Began(key, 0); ok {
			var killed worktree.MergeStart
			if err := json.Unmarshal(began.Result, &killed); err != nil {
				return worktree.MergeResult{}, err
			}
			merged, err := worktree.UndoKilled(ctx, repo, killed)
			switch {
			case err != nil:
				return worktree.MergeResult{}, err
			case merged:
				return worktree.MergeResult{Merged: true, Output: "merged before the run was cut short", Commits: worktree.Ahead(ctx, repo, killed.Head, branch)}, nil
			}
			s.Log().Warnf("resuming: the merge of %s was cut short midway; undone, it runs again", branch)
		}
	}
	start, err := worktree.StartOfMerge(ctx, repo)
	if err != nil {
		return worktree.MergeResult{}, err
	}
	if s.rec != nil {
		data, _ := json.Marshal(start)
		s.rec.Journal(journal.Entry{Kind: journal.Began, Key: key, Op: "git_merge", What: branch, Result: data}, true)
	}
	return worktree.MergeFrom(ctx, repo, branch, start)
}

// closeWorktrees removes the run's worktrees that are not kept, as the
// run ends however it ends — but, when the run was cut short, not those
// that hold work — and says where the kept ones are and how to remove
// them; what cannot be removed is a warning.
func (s *Session) closeWorktrees(cut bool) {
	s.mu.Lock()
	set := s.worktrees
	s.mu.Unlock()
	if set == nil {
		return
	}
	if s.resumableEnd {
		set.Hold("it can be resumed: rooda runs resume " + s.runID())
	}
	kept, err := set.Close(s.ctx, cut)
	for _, wt := range kept {
		s.sayKept(wt, cut)
	}
	if err != nil {
		s.Log().Warnf("the run's worktrees could not all be removed: %v", err)
	}
}

// pruneDeadWorktrees removes what runs that died (rooda killed) left in
// .rooda/worktrees of the repository the run is in, and says so: a crash
// leaves nothing a later run trips over. Outside a repository, or with
// no worktrees ever made, there is nothing to do.
func (s *Session) pruneDeadWorktrees() {
	if s.opts.DryRun {
		return
	}
	ctx := s.ctx
	wd, err := os.Getwd()
	if err != nil {
		return
	}
	repo, ok := worktree.FindRepo(wd)
	if !ok {
		return
	}
	start := time.Now()
	pruned, err := worktree.PruneDead(ctx, repo, s.resumable)
	for _, id := range pruned.Spared {
		s.Log().Infof("left the worktrees of run %s as they are: it was cut short and can be resumed (rooda runs resume %s)", id, id)
	}
	if pruned.Removed > 0 {
		s.Log().Infof("removed %d worktree(s) of %d run(s) that ended without removing them: %v (%s)", pruned.Removed, len(pruned.Runs), pruned.Runs, units.Duration(time.Since(start)))
	}
	for _, k := range pruned.Kept {
		if k.Path == "" {
			s.Log().Warnf("kept branch %s of a run that ended without removing it, as %s; to delete it: git branch -D %s", k.Branch, k.Why, k.Branch)
			continue
		}
		s.Log().Warnf("kept worktree %s, on branch %s, of a run that ended without removing it, as %s; to remove it: %s", k.Path, k.Branch, k.Why, worktree.RemoveHint(k.Path, k.Branch))
	}
	if err != nil {
		s.Log().Warnf("the worktrees of dead runs could not all be removed: %v", err)
	}
}
