package fleet

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	hostgit "rooda/host/git"
)

// Branch is the git branch a run's workspace works on, in the checkout
// it was queued from, or pushed to the repository it names: where its
// commits are once it ends. Under rooda/fleet/, apart from parallel()'s
// rooda/<run id>/…; the same in every clone of the run, since a resume
// goes on only on the branch its journal names.
func Branch(run Run) string { return "rooda/fleet/" + run.Name }

// workspace makes the run's workspace under root, a clone of the run's
// repository or a git worktree of its checkout, on its branch (made at
// the run's commit), or finds it again: a run taken again on the same
// machine goes on in the workspace it had.
func workspace(ctx context.Context, root string, run Run) (path string, made bool, err error) {
	path = filepath.Join(root, run.Name)
	if _, err := os.Stat(filepath.Join(path, ".git")); err == nil {
		return path, false, nil
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return "", false, err
	}
	if run.Repo != "" {
		if err := clone(ctx, path, run); err != nil {
			return "", false, fmt.Errorf("making the workspace of %s: %w", run.Name, err)
		}
		return path, true, nil
	}
	unlock, err := lockWorktrees(ctx, run.Dir)
	if err != nil {
		return "", false, fmt.Errorf("making the workspace of %s: %w", run.Name, err)
	}
	defer unlock()
	args := []string{"worktree", "add", "--quiet", path, Branch(run)}
	if !branchExists(ctx, run.Dir, Branch(run)) {
		args = []string{"worktree", "add", "--quiet", "-b", Branch(run), path, run.Ref}
	}
	if err := git(ctx, run.Dir, args...); err != nil {
		return "", false, fmt.Errorf("making the workspace of %s: %w", run.Name, err)
	}
	return path, true, nil
}

// lockWorktrees holds, until unlock, a lock of the repository of dir
// that every worker takes to add a worktree to it: two `git worktree add`
// at once in one repository fail ("failed to read
// .git/worktrees/…/commondir"), whether from two slots of a worker or
// two workers. The lock is a file in the repository's common git
// directory, locked with flock(2): the kernel lets it go with its holder.
func lockWorktrees(ctx context.Context, dir string) (unlock func(), err error) {
	common, err := gitOutput(ctx, dir, "rev-parse", "--git-common-dir")
	if err != nil {
		return nil, err
	}
	common = strings.TrimSpace(common)
	if !filepath.IsAbs(common) {
		common = filepath.Join(dir, common) // relative to dir, where git ran
	}
	f, err := os.OpenFile(filepath.Join(common, "rooda-fleet-worktrees.lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, err
	}
	return func() { f.Close() }, nil
}

func branchExists(ctx context.Context, dir, branch string) bool {
	return git(ctx, dir, "rev-parse", "--verify", "--quiet", "refs/heads/"+branch) == nil
}

// ResolveRef is the commit ref names in the checkout dir, and dir's top
// level: what a run queued from dir starts from.
func ResolveRef(ctx context.Context, dir, ref string) (top, commit string, err error) {
	out, err := gitOutput(ctx, dir, "rev-parse", "--show-toplevel", ref+"^{commit}")
	if err != nil {
		return "", "", fmt.Errorf("%s is not a git checkout with a commit %s: a fleet's run works in a worktree of one (%w)", dir, ref, err)
	}
	lines := strings.Fields(out)
	if len(lines) != 2 {
		return "", "", fmt.Errorf("git rev-parse in %s said %q", dir, out)
	}
	return lines[0], lines[1], nil
}

// git runs git in dir as rooda runs it (host/git.Run): the repository
// is the agents' to write and the user's configuration may name hooks
// in its working tree, so no hook, fsmonitor or ext:: remote runs; no
// terminal prompt for credentials waits for ever; each command is
// bounded in time, its process group stopped past it.
func git(ctx context.Context, dir string, args ...string) error {
	_, err := gitOutput(ctx, dir, args...)
	return err
}

// gitTimeout bounds each of the fleet's git commands: a clone, a fetch
// or a push of a large repository over a slow network included.
const gitTimeout = 10 * time.Minute

func gitOutput(ctx context.Context, dir string, args ...string) (string, error) {
	return hostgit.Run(ctx, hostgit.Command{Args: args, Dir: dir, Timeout: gitTimeout})
}
