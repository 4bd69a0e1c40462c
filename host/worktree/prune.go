package worktree

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"rooda/host/files"
	"rooda/host/process"
)

// Pruned is what PruneDead did.
type Pruned struct {
	// Runs are the dead runs whose directories were looked at.
	Runs []string
	// Removed counts the worktrees removed.
	Removed int
	// Kept are the dead runs' worktrees, and branches without one, left
	// to the user.
	Kept []Kept
	// Spared are the dead runs left whole, to be resumed.
	Spared []string
}

// Kept is a dead run's worktree left where it is, or a branch of the
// run's left without one (Path ""), and why.
type Kept struct {
	Path, Branch, Why string
}

// PruneDead removes what runs that are no longer going (rooda was
// killed, or died and was never reaped) left below Root: their worktrees,
// what git knows of them (git worktree prune) and their rooda/<run-id>/
// branches. A worktree that was kept (worktree(keep = True)), or that
// holds uncommitted changes or commits on no other branch, stays, as does
// a branch of such commits: a crash loses no work, and only the user
// removes it. The run's directory then keeps them, without its owner
// file: they are the user's, and later runs leave them alone. PruneDead
// touches nothing outside Root/<dead-run-id>/ but git's own records of
// those worktrees and those branches. A run spare spares is left whole:
// one that can be resumed, whose resume takes its worktrees back as they
// are.
func PruneDead(ctx context.Context, repo string, spare func(runID string) bool) (Pruned, error) {
	var p Pruned
	entries, err := os.ReadDir(filepath.Join(repo, Root))
	if errors.Is(err, os.ErrNotExist) {
		return p, nil
	} else if err != nil {
		return p, err
	}
	var trees map[string]string
	var errs []error
	for _, e := range entries {
		dir := filepath.Join(repo, Root, e.Name())
		if !e.IsDir() || !ValidName().MatchString(e.Name()) || going(dir) {
			continue
		}
		if spare != nil && spare(e.Name()) {
			p.Spared = append(p.Spared, e.Name())
			continue
		}
		if trees == nil {
			if trees, err = worktreeBranches(ctx, repo); err != nil {
				return p, err
			}
		}
		p.Runs = append(p.Runs, e.Name())
		errs = append(errs, p.pruneRun(ctx, repo, e.Name(), trees))
	}
	return p, errors.Join(errs...)
}

// pruneRun removes what the dead run id left but what must stay (see
// PruneDead). trees are git's worktrees and their branches.
func (p *Pruned) pruneRun(ctx context.Context, repo, id string, trees map[string]string) error {
	dir := filepath.Join(repo, Root, id)
	o, _ := readOwner(dir)
	prefix := branchPrefix(id)
	var errs []error
	var kept []Kept
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		path := filepath.Join(dir, e.Name())
		if !e.IsDir() || !ValidName().MatchString(e.Name()) {
			continue
		}
		// A directory that is no worktree of git's, and never became one
		// (no .git file: its making was cut short), holds no work. One
		// git lists under another path (the repository was moved, or
		// mounted elsewhere in a container) is looked at all the same.
		branch, known := trees[files.Canonical(path)]
		if _, err := os.Lstat(filepath.Join(path, ".git")); known || err == nil || slices.Contains(o.Keep, e.Name()) {
			if why := whyKeep(ctx, path, branch, prefix, slices.Contains(o.Keep, e.Name())); why != "" {
				kept = append(kept, Kept{Path: path, Branch: branch, Why: why})
				continue
			}
		}
		errs = append(errs, removeTree(ctx, repo, path))
		p.Removed++
	}
	if _, err := runGit(ctx, repo, "worktree", "prune"); err != nil {
		errs = append(errs, err)
	}
	branches, err := runGit(ctx, repo, "for-each-ref", "--format=%(refname:short)", "refs/heads/"+prefix)
	errs = append(errs, err)
	for _, branch := range strings.Fields(branches) {
		switch {
		case slices.ContainsFunc(kept, func(k Kept) bool { return k.Branch == branch }):
		case unmerged(ctx, repo, branch, prefix, ""):
			kept = append(kept, Kept{Branch: branch, Why: "it holds commits on no other branch"})
		default:
			_, err := runGit(ctx, repo, "branch", "-D", branch)
			errs = append(errs, err)
		}
	}
	p.Kept = append(p.Kept, kept...)
	if len(kept) > 0 {
		errs = append(errs, os.Remove(filepath.Join(dir, ownerFile)))
	} else {
		errs = append(errs, os.RemoveAll(dir))
	}
	return errors.Join(errs...)
}

// whyKeep says why the worktree at path, on branch, stays, or "" when
// nothing in it is work that would be lost: it was not kept, it holds no
// uncommitted change, and its commits are on a branch other than its own
// and the run's (prefix), or on none at all but the base it started
// from. What cannot be told stays.
func whyKeep(ctx context.Context, path, branch, prefix string, keep bool) string {
	if keep {
		return "it was made with keep = True"
	}
	status, err := runGit(ctx, path, "status", "--porcelain")
	switch {
	case err != nil:
		return "git cannot tell what it holds: " + err.Error()
	case status != "":
		return "it holds uncommitted changes"
	case unmerged(ctx, path, "HEAD", prefix, branch):
		return "it holds commits on no other branch"
	}
	return ""
}

// unmerged reports whether rev, read in dir, has commits that no branch,
// tag or remote branch holds but the run's own (prefix) and own (a
// branch the worktree was given): a branch that goes with the worktree
// keeps nothing safe. What cannot be told counts as unmerged.
func unmerged(ctx context.Context, dir, rev, prefix, own string) bool {
	args := []string{"rev-list", "-n", "1", rev, "--not", "--exclude=" + prefix + "*"}
	if own != "" {
		args = append(args, "--exclude="+own)
	}
	out, err := runGit(ctx, dir, append(args, "--branches", "--tags", "--remotes")...)
	return err != nil || out != ""
}

// worktreeBranches are git's worktrees of repo, by their paths
// (canonical), and the branch each has out ("" when detached).
func worktreeBranches(ctx context.Context, repo string) (map[string]string, error) {
	out, err := runGit(ctx, repo, "worktree", "list", "--porcelain")
	if err != nil {
		return nil, err
	}
	trees := map[string]string{}
	var path string
	for line := range strings.Lines(out) {
		line = strings.TrimSuffix(line, "\n")
		if p, ok := strings.CutPrefix(line, "worktree "); ok {
			path = files.Canonical(p)
			trees[path] = ""
		} else if b, ok := strings.CutPrefix(line, "branch refs/heads/"); ok {
			trees[path] = b
		}
	}
	return trees, nil
}

// canonical is path with its symbolic links resolved, as git gives a
// worktree's.

// readOwner reads the owner file of a run's directory; a missing or
// damaged one is no owner.
func readOwner(dir string) (o owner, ok bool) {
	data, err := os.ReadFile(filepath.Join(dir, ownerFile))
	return o, err == nil && json.Unmarshal(data, &o) == nil
}

// going reports whether the run that owns dir still runs. A directory
// without an owner is one being made, or whose worktrees are the user's
// (or not rooda's at all): left alone.
func going(dir string) bool {
	o, ok := readOwner(dir)
	return !ok || o.PID <= 0 || process.Alive(o.PID, o.PIDStart)
}
