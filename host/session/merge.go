package session

import (
	"context"
	"fmt"

	"rooda/host/logging"
	"rooda/host/worktree"
)

// saidOfMerge logs what a git_merge() that ran did not merge: a branch
// with no commit the checkout lacks ("Already up to date", which git
// calls success), and work the agent left uncommitted in the worktree,
// which no merge takes and the run keeps.
func (s *Session) saidOfMerge(wt *worktree.Worktree, res worktree.MergeResult, err error) {
	if err != nil || !res.Merged {
		return
	}
	if res.Commits == 0 {
		s.Log().Infof("git_merge(%s): nothing to merge: branch %s has no commit the checkout lacks", wt.Name, wt.Branch)
	}
	if res.Dirty {
		s.Log().Warnf("git_merge(%s): the worktree holds uncommitted work, which was not merged; the run keeps it at %s; to look at it: %s",
			wt.Name, wt.Path, worktree.LookHint(wt.Path))
	}
}

// sayKept says, as the run ends, where a kept worktree is and how to
// remove it; for one kept because it holds work, why, and how to look at
// it. The record keeps why too, for runs show.
func (s *Session) sayKept(wt *worktree.Worktree, cut bool) {
	why, look := "", ""
	switch {
	case wt.Why != "" && cut:
		why = " (the run was cut short and " + wt.Why + ")"
	case wt.Why != "":
		why = " (" + wt.Why + ")"
	}
	if wt.Why != "" {
		look = "; to look at it: " + worktree.LookHint(wt.Path)
	}
	s.notes().Line(logging.Info, "worktree_kept", []any{"name", wt.Name, "path", wt.Path, "branch", wt.Branch, "why", wt.Why},
		"kept worktree %s%s: %s, on branch %s%s; to remove it: %s", wt.Name, why, wt.Path, wt.Branch, look, worktree.RemoveHint(wt.Path, wt.Branch))
	if s.rec != nil && wt.Why != "" {
		s.rec.WorktreeKept(wt.Name, wt.Why)
	}
}

// commitLeftovers commits what the agent left uncommitted in wt when the
// script asked for it (git_merge(commit_leftovers = True)), and says so:
// a commit no agent made is never silent.
func (s *Session) commitLeftovers(ctx context.Context, wt *worktree.Worktree, leftovers bool) error {
	if !leftovers {
		return nil
	}
	committed, err := worktree.CommitLeftovers(ctx, wt.Path)
	if err != nil {
		return fmt.Errorf("git_merge(%s): the work the agent left uncommitted could not be committed: %w", wt.Name, err)
	}
	if committed {
		s.Log().Infof("git_merge(%s): committed the work the agent left uncommitted on branch %s (%q)", wt.Name, wt.Branch, worktree.LeftoverMessage)
	}
	return nil
}
