package git

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// ErrNoStart is Restore's answer when no snapshot of the iteration's
// start was kept: the run was killed before its agent started.
var ErrNoStart = errors.New("no snapshot of the iteration's start was kept")

// ErrNotInGit is Restore's answer outside a git workspace, where no
// snapshot is taken.
var ErrNotInGit = errors.New("the workspace is not in git")

// identity makes the snapshots' commits whatever the user's config says
// of who they are (or does not): they are rooda's.
var identity = []string{"GIT_AUTHOR_NAME=rooda", "GIT_AUTHOR_EMAIL=rooda@localhost",
	"GIT_COMMITTER_NAME=rooda", "GIT_COMMITTER_EMAIL=rooda@localhost"}

// branchLine starts the line of a snapshot's message that names the
// branch HEAD was on, which Restore compares with the one it is on now.
const branchLine = "branch: "

// Snapshot keeps the workspace dir as it is now, tracked files and
// untracked ones (never ignored ones, nor rooda's records), as a commit
// whose parent is HEAD, under ref, which keeps it from git's gc. It
// touches neither the user's index nor the working tree: the tree is
// written from an index of its own, so that a kill -9 at any point leaves
// the user's repository as it was. false outside a git workspace.
func Snapshot(dir, ref, what string) (string, bool, error) {
	l, ok := newLooker(dir)
	if !ok {
		return "", false, nil
	}
	head, branch := l.headAndBranch()
	commit, err := l.commitTree(head, branch, what)
	if err == nil {
		err = l.setRef(ref, commit, what)
	}
	return commit, true, err
}

// commitTree writes the working tree as a commit whose parent is head,
// its message what and the branch HEAD is on.
func (l *looker) commitTree(head, branch, what string) (string, error) {
	tree, err := l.writeTree()
	if err != nil {
		return "", err
	}
	args := []string{"commit-tree", tree, "-m", what + "\n\n" + branchLine + branch}
	if head != "" {
		args = append(args, "-p", head)
	}
	return l.withEnv(identity, args...)
}

// setRef points ref at commit: written here where it can be
// (writeRef), else by git.
func (l *looker) setRef(ref, commit, what string) error {
	if writeRef(l.repo, ref, commit) {
		return nil
	}
	_, err := l.run(Command{Args: []string{"update-ref", "-m", what, ref, commit}})
	return err
}

// headAndBranch are HEAD's commit ("" before the first) and the branch
// it is on ("" when detached), asked of one git where there is a commit:
// each git costs a process.
func (l *looker) headAndBranch() (head, branch string) {
	if head, branch, ok := readHead(l.repo); ok {
		return head, branch
	}
	out, err := l.run(Command{Args: []string{"rev-parse", "HEAD", "--symbolic-full-name", "HEAD"}})
	if lines := strings.Split(out, "\n"); err == nil && len(lines) == 2 {
		head, branch = lines[0], strings.TrimPrefix(lines[1], "HEAD")
		return head, branch
	}
	branch, _ = l.run(Command{Args: []string{"symbolic-ref", "-q", "HEAD"}})
	return "", branch
}

// DropRef removes ref from the workspace's repository, if it is there.
// Its directories stay: a run writes its next iteration's start there at
// once, so they are made and removed once a run (PruneRefDirs), not once
// an iteration, two inodes each time.
func (g *Workspace) DropRef(ref string) error {
	if !g.inRepo || removeRef(g.look.repo, ref) {
		return nil
	}
	_, err := g.look.run(Command{Args: []string{"update-ref", "-d", ref}})
	return err
}

// PruneRefDirs removes the directories below refs/rooda/run of dir's
// repository that hold no ref, as git keeps none: what a run's
// DropRef left.
func PruneRefDirs(dir, run string) {
	l, ok := newLooker(dir)
	if !ok || !plainRef("refs/rooda/"+run, "refs/rooda/") {
		return
	}
	top := filepath.Join(l.repo.CommonDir, "refs", "rooda")
	root := filepath.Join(top, filepath.FromSlash(run))
	var dirs []string
	filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			dirs = append(dirs, path)
		}
		return nil
	})
	for _, d := range slices.Backward(dirs) { // the deepest first
		removeEmptyParents(top, d)
	}
}

// withEnv runs git in l's workspace with more of the environment.
func (l *looker) withEnv(env []string, args ...string) (string, error) {
	c := Command{Args: args, Dir: l.top, Env: append(append([]string(nil), l.env...), env...), Timeout: 30 * time.Second}
	return Run(context.Background(), c)
}

// writeTree writes the working tree as it is, untracked files included,
// as a tree, through an index of its own: a copy of the user's, so that
// git hashes again only the files whose stat changed.
func (l *looker) writeTree() (string, error) {
	tmp, err := os.MkdirTemp("", "rooda-snapshot-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	index := filepath.Join(tmp, "index")
	env := []string{"GIT_INDEX_FILE=" + index}
	if !copyIndex(l.repo.GitDir, index) {
		if _, ok := l.head(); ok {
			if _, err := l.withEnv(env, "read-tree", "HEAD"); err != nil {
				return "", err
			}
		}
	}
	// rooda's records are left out; where the user's .gitignore already
	// ignores them, git refuses to be told so, and leaves them out itself.
	records := ":(top,exclude)" + l.prefix + ".rooda"
	if _, err := l.withEnv(env, "add", "-A", "--", ":/", records); err != nil {
		if !strings.Contains(err.Error(), "ignored by one of your .gitignore files") {
			return "", err
		}
		if _, err := l.withEnv(env, "add", "-A", "--", ":/"); err != nil {
			return "", err
		}
	}
	return l.withEnv(env, "write-tree")
}

// copyIndex copies the user's index to path; false when there is none.
func copyIndex(gitDir, path string) bool {
	data, err := os.ReadFile(filepath.Join(gitDir, "index"))
	if err != nil || len(data) == 0 {
		return false
	}
	return os.WriteFile(path, data, 0o600) == nil
}

// Restore puts the workspace dir back to the snapshot under start, after
// keeping it as it is now under partial, so that nothing is destroyed:
// HEAD back to the commit it was on (only on the same branch, else it
// refuses and changes nothing), the index to that commit, the files as
// the snapshot has them. A file the snapshot lacks that is in the one of
// now is removed: one that was added since. An ignored file is in
// neither, and stays.
func Restore(dir, start, partial string) error {
	l, ok := newLooker(dir)
	if !ok {
		return ErrNotInGit
	}
	from, err := l.run(Command{Args: []string{"rev-parse", "--verify", "--quiet", start + "^{commit}"}})
	if err != nil || from == "" {
		return ErrNoStart
	}
	if err := l.sameBranch(from); err != nil {
		return err
	}
	now, _, err := Snapshot(dir, partial, "rooda: the workspace as a killed iteration left it")
	if err != nil {
		return fmt.Errorf("cannot keep the workspace as it is: %w", err)
	}
	if err := l.removeAdded(from, now); err != nil {
		return err
	}
	return l.checkout(from)
}

// sameBranch refuses a checkout on another branch than the snapshot's.
func (l *looker) sameBranch(from string) error {
	msg, err := l.run(Command{Args: []string{"log", "-1", "--format=%B", from}})
	if err != nil {
		return err
	}
	was := ""
	for _, line := range strings.Split(msg, "\n") {
		if b, ok := strings.CutPrefix(line, branchLine); ok {
			was = b
		}
	}
	is, _ := l.run(Command{Args: []string{"symbolic-ref", "-q", "HEAD"}})
	if is != was {
		return fmt.Errorf("the checkout is on %q, the iteration began on %q", short(is), short(was))
	}
	// A branch made again, or rewritten, since the iteration began is no
	// longer the one it began on, though its name is: what its HEAD was
	// then is not brought back from the snapshot.
	if began, err := l.run(Command{Args: []string{"rev-parse", "--verify", "--quiet", from + "^"}}); err == nil && began != "" {
		if _, err := l.run(Command{Args: []string{"merge-base", "--is-ancestor", began, "HEAD"}}); err != nil {
			return fmt.Errorf("%q no longer holds the commit the iteration began on", short(is))
		}
	}
	return nil
}

// short is a branch's name as the user knows it; "detached" for none.
func short(ref string) string {
	if ref == "" {
		return "a detached HEAD"
	}
	return strings.TrimPrefix(ref, "refs/heads/")
}

// removeAdded removes the files of commit now's tree that from's lacks.
func (l *looker) removeAdded(from, now string) error {
	was, ok1 := l.list("ls-tree", "-r", "-z", "--name-only", "--full-tree", from)
	is, ok2 := l.list("ls-tree", "-r", "-z", "--name-only", "--full-tree", now)
	if !ok1 || !ok2 {
		return errors.New("cannot list the snapshots' files")
	}
	kept := map[string]bool{}
	for _, f := range was {
		kept[f] = true
	}
	for _, f := range is {
		// rooda's records are never the agent's, even when committed.
		if kept[f] || strings.HasPrefix(f, l.prefix+".rooda/") {
			continue
		}
		path := filepath.Join(l.top, filepath.FromSlash(f))
		if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		removeEmptyParents(l.top, filepath.Dir(path))
	}
	return nil
}

// removeEmptyParents removes dir and its parents below top while they
// are empty: git keeps no directory, so one the killed try made goes.
func removeEmptyParents(top, dir string) {
	for dir != top && strings.HasPrefix(dir, top+string(filepath.Separator)) {
		if os.Remove(dir) != nil {
			return
		}
		dir = filepath.Dir(dir)
	}
}

// checkout writes the snapshot's files into the working tree through an
// index of its own, then moves HEAD and the user's index to the commit
// the snapshot was taken on: its untracked files are untracked again.
func (l *looker) checkout(from string) error {
	tmp, err := os.MkdirTemp("", "rooda-restore-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	env := []string{"GIT_INDEX_FILE=" + filepath.Join(tmp, "index")}
	if _, err := l.withEnv(env, "read-tree", from); err != nil {
		return err
	}
	if _, err := l.withEnv(env, "checkout-index", "-a", "-f"); err != nil {
		return err
	}
	if head, err := l.run(Command{Args: []string{"rev-parse", "--verify", "--quiet", from + "^"}}); err == nil && head != "" {
		_, err = l.withEnv(nil, "reset", "-q", "--mixed", head)
		return err
	}
	_, err = l.withEnv(nil, "read-tree", "--empty")
	return err
}
