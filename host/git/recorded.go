package git

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// Repo is where git finds a workspace's repository, as rooda saw it the
// first time it looked, before any agent of its had run there: an agent
// can rewrite a worktree's .git file (gitdir: …) or plant a commondir,
// and rooda's git must not follow them to a config of the agent's.
type Repo struct {
	GitDir    string // the workspace's git directory, absolute
	CommonDir string // what its worktrees share: GitDir but in a linked worktree
	Top       string // the working tree's top level
	Prefix    string // the workspace's path from the top, "" or ending in "/"
	Branch    string // the branch checked out (refs/heads/…), "" if none
}

// recorded are the Repos seen, by the real path of the directory looked
// from.
var recorded sync.Map

// notARepo is what is recorded for a directory outside a work tree.
type notARepo struct{}

// Recorded is the repository of the workspace dir ("" is the working
// directory): the one first recorded for it in this process, else what
// git says now, recorded. false outside a work tree, and that is
// recorded too: a directory that was no repository when rooda first
// looked stays none to rooda, though an agent run git init there (rooda
// runs no git in a repository an agent made), and a sandboxed iteration
// in it asks git nothing.
func Recorded(dir string) (Repo, bool) {
	key := realDir(dir)
	if r, ok := recorded.Load(key); ok {
		repo, inRepo := r.(Repo)
		return repo, inRepo
	}
	out, ok := OutputIn(dir, "", "rev-parse", "--is-inside-work-tree", "--path-format=absolute",
		"--absolute-git-dir", "--git-common-dir", "--show-toplevel", "--show-prefix")
	lines := strings.Split(out, "\n")
	if !ok || len(lines) < 4 || lines[0] != "true" {
		recorded.LoadOrStore(key, notARepo{})
		return Repo{}, false
	}
	r := Repo{GitDir: lines[1], CommonDir: lines[2], Top: lines[3]}
	if len(lines) > 4 {
		r.Prefix = lines[4]
	}
	if r.CommonDir != r.GitDir && !r.Linked() {
		// A commondir in a git directory that is no linked worktree's
		// was planted (by an agent of a rooda killed before it removed
		// it): git would read the config where it points.
		r.CommonDir = r.GitDir
	}
	if branch, err := Run(context.Background(), Command{Args: []string{"symbolic-ref", "-q", "HEAD"}, Dir: dir, Env: r.Env(), Timeout: 30 * time.Second}); err == nil {
		r.Branch = branch
	}
	actual, _ := recorded.LoadOrStore(key, r)
	repo, inRepo := actual.(Repo)
	return repo, inRepo
}

// Linked reports whether r is a linked worktree's: its git directory
// is one of its common directory's worktrees/, the only place git
// makes a commondir file.
func (r Repo) Linked() bool {
	return realDir(filepath.Dir(r.GitDir)) == realDir(filepath.Join(r.CommonDir, "worktrees"))
}

// Forget drops what was recorded for dir: a worktree removed, whose path
// may be made again.
func Forget(dir string) { recorded.Delete(realDir(dir)) }

// Env makes git use r whatever its working directory holds: GIT_DIR and
// GIT_COMMON_DIR beat a .git file and a commondir file.
func (r Repo) Env() []string {
	return []string{"GIT_DIR=" + r.GitDir, "GIT_COMMON_DIR=" + r.CommonDir, "GIT_WORK_TREE=" + r.Top}
}

// EnvIn is Recorded(dir)'s Env; none outside a work tree, where git
// finds what it finds.
func EnvIn(dir string) []string {
	if r, ok := Recorded(dir); ok {
		return r.Env()
	}
	return nil
}

// realDir is dir absolute, its links followed, as the key of a record.
func realDir(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return dir
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		return real
	}
	return abs
}
