// Package worktree gives a run's parallel loops git worktrees of their
// own: each under .rooda/worktrees/<run-id>/<name> on a branch of its own,
// removed when the run ends unless kept; it merges a worktree's branch
// with plain git (never an AI merge), and prunes the worktrees of runs
// that died without removing theirs — never one that was kept or holds
// work not merged anywhere.
package worktree

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"rooda/host/files"
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
	// Why, when set, is why a worktree not kept was left all the same:
	// the run was cut short while it held work.
	Why string
}

// Set is the worktrees of one run, in one repository. It is safe for
// the parallel loops of a run.
type Set struct {
	mu    sync.Mutex
	repo  string // the main checkout's top level
	runID string
	trees []*Worktree
	// hold is why every worktree is kept as the run ends (Hold); "" when
	// only those holding work are.
	hold string
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

// ValidName is the form of a worktree's name, a path component and a
// branch name component alike, and of a run's.
var ValidName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`) })

// NameError is a worktree() the script named wrongly: its own mistake,
// which no retry mends.
type NameError string

func (e NameError) Error() string { return string(e) }

// Add makes a worktree named name on branch (rooda/<run-id>/<name> when
// ""), from base.
func (s *Set) Add(ctx context.Context, name, branch, base string, keep bool) (*Worktree, error) {
	if !ValidName().MatchString(name) || strings.HasSuffix(name, ".lock") {
		return nil, NameError(fmt.Sprintf("worktree name %q: use letters, digits, '.', '_' and '-', starting with a letter or digit", name))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, t := range s.trees {
		if t.Name == name {
			return nil, NameError(fmt.Sprintf("worktree %q is already made in this run", name))
		}
	}
	if branch == "" {
		branch = DefaultBranch(s.runID, name)
	}
	t := &Worktree{Name: name, Path: filepath.Join(s.runDir(), name), Branch: branch, Keep: keep}
	// The owner file names it kept before it exists: a run killed at
	// any moment after leaves it to the user.
	if err := s.claim(append(s.trees, t)); err != nil {
		return nil, err
	}
	if _, err := runGit(ctx, s.repo, "worktree", "add", "-q", "-b", branch, "--", t.Path, base); err != nil {
		s.claim(s.trees)
		return nil, err
	}
	// Where its repository is, before any agent writes its .git file;
	// not what was recorded of the path before it was made (no repo).
	git.Forget(t.Path)
	if _, ok := git.Recorded(t.Path); !ok {
		return nil, fmt.Errorf("worktree %q made at %s is no git work tree", name, t.Path)
	}
	s.trees = append(s.trees, t)
	return t, nil
}

// Reattach takes back t, a worktree the run made before it was cut short
// and resumed, as the set's: it must still be there, a worktree of the
// repository on its branch. What was made is not made again.
func (s *Set) Reattach(ctx context.Context, t Worktree) (*Worktree, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	top, err := runGit(ctx, t.Path, "rev-parse", "--show-toplevel")
	if err != nil || top != t.Path {
		return nil, fmt.Errorf("worktree %q of the run, %s, is no longer there: it cannot be taken back", t.Name, t.Path)
	}
	again := &Worktree{Name: t.Name, Path: t.Path, Branch: t.Branch, Keep: t.Keep}
	if err := s.claim(append(s.trees, again)); err != nil {
		return nil, err
	}
	s.trees = append(s.trees, again)
	return again, nil
}

// Keep keeps t, a worktree of the set, and its branch when the run
// ends, as worktree(keep = True) does: for a merge of its branch that did
// not happen.
func (s *Set) Keep(t *Worktree) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	t.Keep = true
	return s.claim(s.trees)
}

// RemoveHint is how the user removes a kept worktree and its branch,
// which rooda never does on its own.
func RemoveHint(path, branch string) string {
	remove := process.Join([]string{"git", "worktree", "remove", path})
	if branch == "" { // detached
		return remove
	}
	return remove + " && " + process.Join([]string{"git", "branch", "-D", branch})
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
	// Keep names the worktrees kept (worktree(keep = True)): a later run
	// that finds this one dead leaves them.
	Keep []string `json:"keep,omitempty"`
}

// claim marks the run's directory, made at the first worktree, as this
// process's, naming which of trees are kept; the Root gets a .gitignore
// so that the worktrees are no one's change in the main checkout. The
// file is written whole (a rename): a run killed while writing it leaves
// the old one.
func (s *Set) claim(trees []*Worktree) error {
	if err := os.MkdirAll(s.runDir(), 0o755); err != nil {
		return err
	}
	ignore := filepath.Join(s.repo, Root, ".gitignore")
	if _, err := os.Stat(ignore); errors.Is(err, os.ErrNotExist) {
		if err := os.WriteFile(ignore, []byte("*\n"), 0o644); err != nil {
			return err
		}
	}
	o := owner{PID: os.Getpid(), PIDStart: process.StartTime(os.Getpid())}
	for _, t := range trees {
		if t.Keep {
			o.Keep = append(o.Keep, t.Name)
		}
	}
	data, err := json.Marshal(o)
	if err != nil {
		return err
	}
	return files.WriteWhole(filepath.Join(s.runDir(), ownerFile), data)
}

// Hold keeps every worktree of the set as the run, cut short, ends,
// saying why of those that hold no work: a run that will be resumed takes
// them back as they are.
func (s *Set) Hold(why string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hold = why
}

// Close removes every worktree not kept, and its branch: what a loop
// committed there and the script did not merge goes with it, as the
// script decided by not keeping it. What was never committed is no
// script's decision: a worktree holding it is kept, its Why saying so.
// A run cut short (an interrupt, an
// error, a budget) decided nothing: then a worktree that holds work —
// uncommitted changes, or commits on no other branch — is kept too, its
// Why saying so. The run's directory goes too, or, when it holds kept
// ones, its owner file: they are the user's now, and no later run's
// PruneDead takes them for a dead run's. It returns the kept ones, and
// every failure.
func (s *Set) Close(ctx context.Context, cut bool) (kept []*Worktree, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var errs []error
	for _, t := range s.trees {
		if !t.Keep {
			t.Why = s.whyLeft(ctx, t, cut)
		}
		if t.Keep || t.Why != "" {
			kept = append(kept, t)
			continue
		}
		errs = append(errs, s.remove(ctx, t))
	}
	s.trees = nil
	if len(kept) > 0 {
		errs = append(errs, os.Remove(filepath.Join(s.runDir(), ownerFile)))
	} else {
		errs = append(errs, os.RemoveAll(s.runDir()))
	}
	return kept, errors.Join(errs...)
}

// whyLeft is why t, not kept, is left as the run ends all the same, or
// "": a run cut short leaves whatever holds work; one that ended leaves
// what its agent did not commit, for no merge took that and removing it
// would lose it.
func (s *Set) whyLeft(ctx context.Context, t *Worktree, cut bool) string {
	// The run's context may be cancelled: git must still answer.
	ctx = context.WithoutCancel(ctx)
	if cut {
		return cmp.Or(whyKeep(ctx, t.Path, t.Branch, branchPrefix(s.runID), false), s.hold)
	}
	if Uncommitted(ctx, t.Path) {
		return UncommittedWhy
	}
	return ""
}

// UncommittedWhy is why a worktree of a run that ended is kept.
const UncommittedWhy = "it holds uncommitted work, which no merge took"

// remove removes one worktree and its branch.
func (s *Set) remove(ctx context.Context, t *Worktree) error {
	err := removeTree(ctx, s.repo, t.Path)
	if _, branchErr := runGit(context.WithoutCancel(ctx), s.repo, "branch", "-D", t.Branch); branchErr != nil {
		err = errors.Join(err, branchErr)
	}
	return err
}

// removeTree removes the worktree at path, and what git knows of it.
func removeTree(ctx context.Context, repo, path string) error {
	// The run's context may be cancelled (an interrupt): the cleanup
	// must still happen.
	ctx = context.WithoutCancel(ctx)
	defer git.Forget(path)
	_, err := runGit(ctx, repo, "worktree", "remove", "--force", "--force", path)
	if err != nil {
		// A worktree git no longer knows: its directory is ours to remove.
		if os.RemoveAll(path) == nil {
			err = nil
		}
		runGit(ctx, repo, "worktree", "prune")
	}
	return err
}

// MergeResult is how a merge went: merged, or the files in conflict
// (the merge aborted, the checkout as it was).
type MergeResult struct {
	Merged    bool
	Conflicts []string
	Output    string
	// Commits is how many commits of the branch the merge brought in: 0
	// when the checkout had them all ("Already up to date"), which a
	// script would otherwise take for a merge of its work.
	Commits int
	// Dirty is whether the worktree held changes or untracked files
	// after the merge: work no merge takes, which the run then keeps.
	Dirty bool
}

// Merge merges branch into the branch checked out in repo with git merge
// --no-edit. On a conflict it aborts the merge and names the files; an
// error is a merge that could not even start (a dirty checkout, no such
// branch) or one that failed midway. A merge stopped midway — by ctx's
// end (an interrupt), a commit that failed or ran past mergeTimeout (a
// signing program) — is undone, the checkout left as it was, unless it got as
// far as its commit (Merged).
func Merge(ctx context.Context, repo, branch string) (MergeResult, error) {
	start, err := StartOfMerge(ctx, repo)
	if err != nil {
		return MergeResult{}, err
	}
	return MergeFrom(ctx, repo, branch, start)
}

// MergeStart is the checkout as a merge starts: its HEAD, and whether
// anything was staged. A merge stopped midway is undone against it.
type MergeStart struct {
	Head   string
	Staged bool
}

// StartOfMerge is the checkout of repo as a merge is about to start.
func StartOfMerge(ctx context.Context, repo string) (MergeStart, error) {
	head, err := runGit(ctx, repo, "rev-parse", "--verify", "-q", "HEAD")
	return MergeStart{Head: head, Staged: stagedIn(ctx, repo)}, err
}

// UndoKilled puts back the checkout of repo as it was at start, where a
// merge that started there was killed midway, with the rooda that ran
// it: the same undoing as an interrupted merge's. merged reports a merge
// that got as far as its commit: done, not undone.
func UndoKilled(ctx context.Context, repo string, start MergeStart) (merged bool, err error) {
	if !begun(ctx, repo, start.Head, start.Staged) {
		return false, nil
	}
	return undoMerge(ctx, repo, start.Head)
}

// MergeFrom is Merge, the checkout as it was at start.
func MergeFrom(ctx context.Context, repo, branch string, start MergeStart) (MergeResult, error) {
	head, staged := start.Head, start.Staged
	// Counted before: after the merge, the checkout has them all.
	commits := Ahead(ctx, repo, head, branch)
	out, err := git.Run(ctx, git.Command{Args: []string{"merge", "--no-edit", branch}, Dir: repo, Env: git.EnvIn(repo), Timeout: mergeTimeout})
	if err == nil {
		return MergeResult{Merged: true, Output: out, Commits: commits}, nil
	}
	conflicts, _ := runGit(context.WithoutCancel(ctx), repo, "diff", "--name-only", "--diff-filter=U")
	if conflicts == "" || ctx.Err() != nil {
		if !begun(ctx, repo, head, staged) {
			return MergeResult{Output: out}, err
		}
		merged, undoErr := undoMerge(ctx, repo, head)
		if ctx.Err() != nil {
			err = nil // the interrupt is the caller's to report
		}
		res := MergeResult{Merged: merged, Output: out}
		if merged {
			res.Commits = commits
		}
		return res, errors.Join(err, undoErr)
	}
	if _, abortErr := runGit(context.WithoutCancel(ctx), repo, "merge", "--abort"); abortErr != nil {
		return MergeResult{Output: out}, fmt.Errorf("merge of %s left in conflict, and git merge --abort failed: %w", branch, abortErr)
	}
	return MergeResult{Conflicts: strings.Split(conflicts, "\n"), Output: out}, nil
}

// mergeTimeout bounds a merge. It runs no hook (host/git's hardened):
// the hooks of a checkout agents wrote in are not the user's for sure.
const mergeTimeout = 30 * time.Minute

// begun reports whether a merge that failed changed the checkout of repo
// (HEAD, MERGE_HEAD, or the index, which had nothing staged before it)
// rather than refusing to start: git merge starts only with nothing
// staged, and what the user had staged is never the merge's to undo.
func begun(ctx context.Context, repo, head string, stagedBefore bool) bool {
	ctx = context.WithoutCancel(ctx)
	if now, _ := runGit(ctx, repo, "rev-parse", "--verify", "-q", "HEAD"); now != head {
		return true
	}
	if _, err := runGit(ctx, repo, "rev-parse", "--verify", "-q", "MERGE_HEAD"); err == nil {
		return true
	}
	return !stagedBefore && stagedIn(ctx, repo)
}

// stagedIn reports whether the index of repo differs from its HEAD.
func stagedIn(ctx context.Context, repo string) bool {
	_, err := runGit(context.WithoutCancel(ctx), repo, "diff", "--cached", "--quiet")
	return err != nil
}

// undoMerge puts the checkout of repo back as it was at head, before a
// merge stopped midway — signing its commit, say, with the merge staged
// and no MERGE_HEAD yet, where git merge --abort refuses. git reset
// --merge undoes what the merge staged and leaves what the user had not
// staged (a merge starts only with nothing staged). A merge that got as
// far as its commit is done, not undone: merged.
func undoMerge(ctx context.Context, repo, head string) (merged bool, err error) {
	ctx = context.WithoutCancel(ctx)
	if now, _ := runGit(ctx, repo, "rev-parse", "--verify", "-q", "HEAD"); now != head {
		return true, nil
	}
	if _, err := runGit(ctx, repo, "reset", "--merge"); err != nil {
		return false, fmt.Errorf("the interrupted merge could not be undone, %s is left mid-merge: %w", repo, err)
	}
	return false, nil
}

// Ahead is how many commits branch has that head (a commit; "" for an
// unborn branch, which has none) lacks: what a merge of branch into head
// brings in. What git cannot count is 0.
func Ahead(ctx context.Context, repo, head, branch string) int {
	revs := []string{"rev-list", "--count", branch}
	if head != "" {
		revs = append(revs, "^"+head)
	}
	out, err := runGit(context.WithoutCancel(ctx), repo, append(revs, "--")...)
	n, convErr := strconv.Atoi(out)
	if err != nil || convErr != nil {
		return 0
	}
	return n
}

// Uncommitted reports whether the worktree at path holds changes or
// untracked files (what git status shows, ignored files left out): work
// that is on no branch, and goes when the worktree is removed. What git
// cannot tell counts as work; a worktree that is gone holds none.
func Uncommitted(ctx context.Context, path string) bool {
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return false
	}
	status, err := runGit(context.WithoutCancel(ctx), path, "status", "--porcelain")
	return err != nil || status != ""
}

// LeftoverMessage and leftoverBy make the commit of what an agent left
// uncommitted (git_merge(commit_leftovers = True)): rooda's, author and
// committer, said so, never passed off as the agent's or the user's; it
// needs no identity of the user's configured.
const LeftoverMessage = "rooda: work the agent left uncommitted"

var leftoverBy = []string{"GIT_AUTHOR_NAME=rooda", "GIT_AUTHOR_EMAIL=rooda@localhost", "GIT_COMMITTER_NAME=rooda", "GIT_COMMITTER_EMAIL=rooda@localhost"}

// CommitLeftovers commits, on the branch of the worktree at path, every
// change and untracked file there (ignored files left out), when there
// are any: committed reports whether it made a commit.
func CommitLeftovers(ctx context.Context, path string) (committed bool, err error) {
	if !Uncommitted(ctx, path) {
		return false, nil
	}
	if _, err := runGit(ctx, path, "add", "-A"); err != nil {
		return false, err
	}
	commit := git.Command{Args: []string{"commit", "-q", "-m", LeftoverMessage}, Dir: path, Env: append(git.EnvIn(path), leftoverBy...)}
	if _, err := git.Run(ctx, commit); err != nil {
		return false, err
	}
	return true, nil
}

// LookHint is how the user looks at what a kept worktree holds.
func LookHint(path string) string {
	return process.Join([]string{"git", "-C", path, "status"})
}

// Merged reports whether every commit of branch is on the branch repo
// has out.
func Merged(ctx context.Context, repo, branch string) bool {
	_, err := runGit(context.WithoutCancel(ctx), repo, "merge-base", "--is-ancestor", branch, "HEAD")
	return err == nil
}

// runGit runs git in dir, on the repository recorded for it
// (git.Recorded): an agent may have rewritten a worktree's .git file.
func runGit(ctx context.Context, dir string, args ...string) (string, error) {
	return git.Run(ctx, git.Command{Args: args, Dir: dir, Env: git.EnvIn(dir)})
}
