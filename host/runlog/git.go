package runlog

import (
	"sort"
	"strings"

	gitpkg "rooda/host/git"
)

// emptyTree is git's tree with nothing in it: what a repository with no
// commit is compared from.
const emptyTree = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"

// Git takes the facts of a git workspace around each iteration: HEAD, and
// the files the iteration changed — not those changed before it.
type Git struct {
	inRepo    bool
	head      string
	tree      string            // the working tree's tracked files before
	untracked map[string]string // untracked files before, and their hashes
}

// NewGit looks whether the working directory is in a git repository.
func NewGit() *Git {
	out, ok := gitOut("", "rev-parse", "--is-inside-work-tree")
	return &Git{inRepo: ok && out == "true"}
}

// InRepo reports whether the workspace is a git repository.
func (g *Git) InRepo() bool { return g.inRepo }

// Before notes HEAD and the state of the working tree.
func (g *Git) Before() {
	if !g.inRepo {
		return
	}
	g.head, _ = gitOut("", "rev-parse", "HEAD")
	g.tree, g.untracked = snapshot()
}

// After returns HEAD before and now, and the files whose content changed
// since Before: tracked ones, committed or not, and untracked ones.
func (g *Git) After() (before, now string, changed []string) {
	if !g.inRepo {
		return "", "", nil
	}
	now, _ = gitOut("", "rev-parse", "HEAD")
	tree, untracked := snapshot()
	set := lines(gitOut("", "diff", "--name-only", g.tree, tree))
	for f, hash := range untracked {
		if g.untracked[f] != hash {
			set[f] = true
		}
	}
	for f := range g.untracked {
		if _, still := untracked[f]; !still {
			set[f] = true
		}
	}
	for f := range set {
		if !strings.HasPrefix(f, ".rooda/") { // rooda's own records
			changed = append(changed, f)
		}
	}
	sort.Strings(changed)
	return g.head, now, changed
}

// snapshot is a tree of the working tree's tracked files (a stash commit
// that touches nothing, else HEAD, else the empty tree) and the untracked
// files with the hashes of their content.
func snapshot() (string, map[string]string) {
	tree, ok := gitOut("", "stash", "create")
	if !ok || tree == "" {
		if tree, ok = gitOut("", "rev-parse", "HEAD"); !ok {
			tree = emptyTree
		}
	}
	var files []string
	for f := range lines(gitOut("", "ls-files", "--others", "--exclude-standard")) {
		files = append(files, f)
	}
	sort.Strings(files)
	hashes := map[string]string{}
	if len(files) > 0 {
		out, _ := gitOut(strings.Join(files, "\n")+"\n", "hash-object", "--stdin-paths")
		for i, h := range strings.Split(out, "\n") {
			if i < len(files) {
				hashes[files[i]] = h
			}
		}
	}
	return tree, hashes
}

// gitOut runs a short git command: what it printed, and whether it
// succeeded (a failed one prints nothing).
func gitOut(stdin string, args ...string) (string, bool) { return gitpkg.Output(stdin, args...) }

func lines(out string, ok bool) map[string]bool {
	set := map[string]bool{}
	if !ok {
		return set
	}
	for _, l := range strings.Split(out, "\n") {
		if l != "" {
			set[l] = true
		}
	}
	return set
}
