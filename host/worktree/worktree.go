// Package worktree gives a run's parallel loops git worktrees of their
// own: each under .rooda/worktrees/<run-id>/<name> on a branch of its own,
// removed when the run ends unless kept; it merges a worktree's branch
// with plain git (never an AI merge), and prunes the worktrees of runs
// that died without removing theirs.
package worktree

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"rooda/host/git"
	"rooda/host/process"
)

// Root is where the worktrees of every run live, below the main
// checkout's top level: one directory per run, named by its id.
const Root = ".rooda/worktrees"

// ownerFile, in a run's directory, names the process that made it, so
// that a later run can tell a dead run's worktrees from a live one's.
const ownerFile = ".owner.json"

// Worktree is one git worktree of a run.
type Worktree struct {
	Name   string
	Path   string // absolute
	Branch string
	// Keep leaves the worktree and its branch when the run ends.
	Keep bool
}

// Set is the worktrees of one run, in one repository. It is safe for
// the parallel loops of a run.
type Set struct {
	mu    sync.Mutex
	repo  string // the main checkout's top level
	runID string
	trees []*Worktree
}

// NewSet is the worktrees of the run runID in the repository that holds
// dir. It makes nothing yet.
func NewSet(ctx context.Context, dir, runID string) (*Set, error) {
	repo, err := runGit(ctx, dir, "rev-parse", "--show-toplevel")
	if err != nil {
		return nil, fmt.Errorf("worktree() needs a git repository: %w", err)
	}
	return &Set{repo: repo, runID: runID}, nil
}

// Repo is the main checkout's top level.
func (s *Set) Repo() string { return s.repo }

// runDir is where this run's worktrees are.
func (s *Set) runDir() string { return filepath.Join(s.repo, Root, s.runID) }

// validName is a worktree's name: a path component and a branch name
// component alike.
var validName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// Add makes a worktree named name on branch (rooda/<run-id>/<name> when
// ""), from base.
func (s *Set) Add(ctx context.Context, name, branch, base string, keep bool) (*Worktree, error) {
	if !validName.MatchString(name) || strings.HasSuffix(name, ".lock") {
		return nil, fmt.Errorf("worktree name %q: use letters, digits, '.', '_' and '-', starting with a letter or digit", name)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, t := range s.trees {
		if t.Name == name {
			return nil, fmt.Errorf("worktree %q is already made in this run", name)
		}
	}
	if err := s.claim(); err != nil {
		return nil, err
	}
	if branch == "" {
		branch = DefaultBranch(s.runID, name)
	}
	t := &Worktree{Name: name, Path: filepath.Join(s.runDir(), name), Branch: branch, Keep: keep}
	if _, err := runGit(ctx, s.repo, "worktree", "add", "-q", "-b", branch, "--", t.Path, base); err != nil {
		return nil, err
	}
	s.trees = append(s.trees, t)
	return t, nil
}

// DefaultBranch is the branch of a run's worktree that names none.
func DefaultBranch(runID, name string) string { return branchPrefix(runID) + name }

// branchPrefix begins the names of a run's branches.
func branchPrefix(runID string) string { return "rooda/" + runID + "/" }

// FindRepo is the top level of the repository dir is in, when it has
// worktrees of runs: it looks upwards from dir for Root without starting
// git.
func FindRepo(dir string) (string, bool) {
	for {
		if info, err := os.Stat(filepath.Join(dir, Root)); err == nil && info.IsDir() {
			return dir, true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
}

// owner is what ownerFile holds.
type owner struct {
	PID      int    `json:"pid"`
	PIDStart uint64 `json:"pid_start,omitempty"`
}

// claim makes the run's directory and marks it as this process's, once;
// the Root gets a .gitignore so that the worktrees are no one's change in
// the main checkout.
func (s *Set) claim() error {
	if len(s.trees) > 0 {
		return nil
	}
	if err := os.MkdirAll(s.runDir(), 0o755); err != nil {
		return err
	}
	ignore := filepath.Join(s.repo, Root, ".gitignore")
	if _, err := os.Stat(ignore); errors.Is(err, os.ErrNotExist) {
		os.WriteFile(ignore, []byte("*\n"), 0o644)
	}
	data, _ := json.Marshal(owner{PID: os.Getpid(), PIDStart: process.StartTime(os.Getpid())})
	return os.WriteFile(filepath.Join(s.runDir(), ownerFile), data, 0o644)
}

// Close removes every worktree not kept, and its branch: what a loop
// committed there and the script did not merge goes with it, as the
// script decided by not keeping it. The run's directory goes too, or,
// when it holds kept ones, its owner file: they are the user's now, and
// no later run's PruneDead takes them for a dead run's. Every failure is
// returned.
func (s *Set) Close(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var errs []error
	kept := false
	for _, t := range s.trees {
		if t.Keep {
			kept = true
			continue
		}
		errs = append(errs, s.remove(ctx, t))
	}
	s.trees = nil
	if kept {
		errs = append(errs, os.Remove(filepath.Join(s.runDir(), ownerFile)))
	} else {
		errs = append(errs, os.RemoveAll(s.runDir()))
	}
	return errors.Join(errs...)
}

// remove removes one worktree and its branch.
func (s *Set) remove(ctx context.Context, t *Worktree) error {
	// The run's context may be cancelled (an interrupt): the cleanup
	// must still happen.
	ctx = context.WithoutCancel(ctx)
	_, err := runGit(ctx, s.repo, "worktree", "remove", "--force", "--force", t.Path)
	if err != nil {
		// A worktree git no longer knows: its directory is ours to remove.
		if os.RemoveAll(t.Path) == nil {
			err = nil
		}
		runGit(ctx, s.repo, "worktree", "prune")
	}
	if _, branchErr := runGit(ctx, s.repo, "branch", "-D", t.Branch); branchErr != nil {
		err = errors.Join(err, branchErr)
	}
	return err
}

// MergeResult is how a merge went: merged, or the files in conflict
// (the merge aborted, the checkout as it was).
type MergeResult struct {
	Merged    bool
	Conflicts []string
	Output    string
}

// Merge merges branch into the branch checked out in repo with git merge
// --no-edit. On a conflict it aborts the merge and names the files; an
// error is a merge that could not even start (a dirty checkout, no such
// branch).
func Merge(ctx context.Context, repo, branch string) (MergeResult, error) {
	out, err := runGit(ctx, repo, "merge", "--no-edit", branch)
	if err == nil {
		return MergeResult{Merged: true, Output: out}, nil
	}
	conflicts, _ := runGit(ctx, repo, "diff", "--name-only", "--diff-filter=U")
	if conflicts == "" {
		return MergeResult{Output: out}, err
	}
	if _, abortErr := runGit(context.WithoutCancel(ctx), repo, "merge", "--abort"); abortErr != nil {
		return MergeResult{Output: out}, fmt.Errorf("merge of %s left in conflict, and git merge --abort failed: %w", branch, abortErr)
	}
	return MergeResult{Conflicts: strings.Split(conflicts, "\n"), Output: out}, nil
}

// PruneDead removes the worktrees that runs which are no longer going
// left (rooda was killed): their directories below Root, what git
// knows of them (git worktree prune) and their rooda/<run-id>/ branches.
// It touches nothing outside Root/<dead-run-id>/ but git's own records of
// those worktrees and those branches. It returns the dead runs' ids.
func PruneDead(ctx context.Context, repo string) ([]string, error) {
	entries, err := os.ReadDir(filepath.Join(repo, Root))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	var dead []string
	var errs []error
	for _, e := range entries {
		if !e.IsDir() || !validName.MatchString(e.Name()) || going(filepath.Join(repo, Root, e.Name())) {
			continue
		}
		dead = append(dead, e.Name())
		errs = append(errs, os.RemoveAll(filepath.Join(repo, Root, e.Name())))
	}
	if len(dead) == 0 {
		return nil, nil
	}
	if _, err := runGit(ctx, repo, "worktree", "prune"); err != nil {
		errs = append(errs, err)
	}
	for _, id := range dead {
		errs = append(errs, deleteBranches(ctx, repo, branchPrefix(id)))
	}
	return dead, errors.Join(errs...)
}

// going reports whether the run that owns dir still runs. A directory
// without an owner is one being made (or not rooda's): left alone.
func going(dir string) bool {
	data, err := os.ReadFile(filepath.Join(dir, ownerFile))
	if err != nil {
		return true
	}
	var o owner
	return json.Unmarshal(data, &o) != nil || o.PID <= 0 || process.Alive(o.PID, o.PIDStart)
}

// deleteBranches deletes the branches whose names begin with prefix.
func deleteBranches(ctx context.Context, repo, prefix string) error {
	out, err := runGit(ctx, repo, "for-each-ref", "--format=%(refname:short)", "refs/heads/"+prefix)
	if err != nil || out == "" {
		return err
	}
	_, err = runGit(ctx, repo, append([]string{"branch", "-D"}, strings.Split(out, "\n")...)...)
	return err
}

// runGit runs git in dir.
func runGit(ctx context.Context, dir string, args ...string) (string, error) {
	return git.Run(ctx, git.Command{Args: args, Dir: dir})
}
