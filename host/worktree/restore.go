package worktree

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"rooda/host/git"
)

// How is how a resumed run took back a worktree it had asked for.
type How int

const (
	// Reattached: the worktree was there, as the run left it.
	Reattached How = iota
	// FromBranch: its directory was gone (or half made), its branch
	// was not: made again from the branch, with the branch's commits.
	FromBranch
	// Afresh: its branch was gone too, or was never made: made from
	// the base, as at first; what was committed in it is gone.
	Afresh
)

// Restore takes back t, a worktree a resumed run asked for before it was
// cut short, with what is left of it: the worktree as it is when it is
// there, else made again from its branch (git worktree add without -b,
// which keeps the branch's commits), else made afresh from base. halfMade
// says the make was cut short before it returned: a worktree at t.Path is
// then one git was still checking out, which no agent worked in, and is
// made again from its branch rather than taken as it is.
func (s *Set) Restore(ctx context.Context, t Worktree, base string, halfMade bool) (*Worktree, How, error) {
	if !halfMade {
		if again, err := s.Reattach(ctx, t); err == nil {
			dropStaleLocks(t)
			return again, Reattached, nil
		}
	} else if err := s.dropHalfMade(ctx, t); err != nil {
		return nil, 0, err
	}
	if !s.hasBranch(ctx, t.Branch) {
		again, err := s.Add(ctx, t.Name, t.Branch, base, t.Keep)
		return again, Afresh, err
	}
	again, err := s.addFromBranch(ctx, t)
	return again, FromBranch, err
}

// hasBranch reports whether branch is a branch of the repository.
func (s *Set) hasBranch(ctx context.Context, branch string) bool {
	_, err := runGit(ctx, s.repo, "rev-parse", "--verify", "-q", "refs/heads/"+branch)
	return err == nil
}

// dropHalfMade removes what a make of t cut short left at its path — a
// worktree no agent worked in yet — keeping its branch.
func (s *Set) dropHalfMade(ctx context.Context, t Worktree) error {
	if _, err := os.Lstat(t.Path); err != nil {
		return nil
	}
	if top, err := runGit(ctx, t.Path, "rev-parse", "--show-toplevel"); err != nil || top != t.Path {
		// Not a worktree of ours: whatever it holds is not ours to
		// remove; addFromBranch says so.
		return nil
	}
	return removeTree(ctx, s.repo, t.Path)
}

// addFromBranch makes t again at its path from its branch, which exists:
// git worktree prune first forgets a worktree git still lists at a path
// that is gone, else git refuses the branch as checked out there.
func (s *Set) addFromBranch(ctx context.Context, t Worktree) (*Worktree, error) {
	if entries, err := os.ReadDir(t.Path); err == nil && len(entries) > 0 {
		return nil, fmt.Errorf("worktree %q of the run cannot be made again: %s holds files but is no worktree of the repository; move it aside, then resume the run again", t.Name, t.Path)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	again := &Worktree{Name: t.Name, Path: t.Path, Branch: t.Branch, Keep: t.Keep}
	if err := s.claim(append(s.trees, again)); err != nil {
		return nil, err
	}
	if _, err := runGit(ctx, s.repo, "worktree", "prune"); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(t.Path), 0o755); err != nil {
		return nil, err
	}
	if _, err := runGit(ctx, s.repo, "worktree", "add", "-q", "--", t.Path, t.Branch); err != nil {
		s.claim(s.trees)
		return nil, err
	}
	// What git.Recorded cached of the path while it was gone ("not a
	// repository") is forgotten before it is asked again.
	git.Forget(t.Path)
	if _, ok := git.Recorded(t.Path); !ok {
		return nil, fmt.Errorf("worktree %q made again at %s is no git work tree", t.Name, t.Path)
	}
	s.trees = append(s.trees, again)
	return again, nil
}

// Path is where the set's worktree name is, or would be.
func (s *Set) Path(name string) string { return filepath.Join(s.runDir(), name) }

// dropStaleLocks removes the locks a git of the killed run's agent left
// in t, a worktree only the run's agents work in, whose every process
// the kill ended: git would refuse the next commit there ("HEAD.lock
// exists"), and the iteration that runs again would fail for it.
func dropStaleLocks(t Worktree) {
	r, ok := git.Recorded(t.Path)
	if !ok {
		return
	}
	for _, lock := range []string{
		filepath.Join(r.GitDir, "index.lock"), filepath.Join(r.GitDir, "HEAD.lock"),
		filepath.Join(r.CommonDir, "refs", "heads", filepath.FromSlash(t.Branch)+".lock"),
	} {
		os.Remove(lock)
	}
}
