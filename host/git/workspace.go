package git

import (
	"slices"
	"strings"
)

// emptyTree is git's tree with nothing in it: what a repository with no
// commit is compared from.
const emptyTree = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"

// Workspace takes the facts of a git workspace around each iteration:
// HEAD, and the files the iteration changed — not those changed before
// it. The loop takes them once an iteration, for the record, the digest
// and the stall rule alike.
type Workspace struct {
	// dir is the workspace's directory; "" is the working directory.
	dir       string
	inRepo    bool
	head      string
	tree      string            // the working tree's tracked files before
	untracked map[string]string // untracked files before, and their hashes
}

// Changes are what an iteration changed in the workspace.
type Changes struct {
	// InRepo is false outside a git repository, where nothing is known.
	InRepo                bool
	HeadBefore, HeadAfter string
	// Files are the files whose content changed, tracked or not,
	// committed or not; rooda's own records are left out.
	Files []string
}

// Changed reports whether the iteration changed anything: HEAD moved, or
// a file changed. Outside a repository it is false: nothing is known.
func (c Changes) Changed() bool {
	return c.InRepo && (c.HeadBefore != c.HeadAfter || len(c.Files) > 0)
}

// NewWorkspaceIn looks whether dir ("" is the working directory) is in a
// git repository: a parallel loop's worktree is its own workspace.
func NewWorkspaceIn(dir string) *Workspace {
	g := &Workspace{dir: dir}
	out, ok := g.output("", "rev-parse", "--is-inside-work-tree")
	g.inRepo = ok && out == "true"
	return g
}

// output is Output in the workspace's directory.
func (g *Workspace) output(stdin string, args ...string) (string, bool) {
	return OutputIn(g.dir, stdin, args...)
}

// Before notes HEAD and the state of the working tree.
func (g *Workspace) Before() {
	if !g.inRepo {
		return
	}
	g.head, _ = g.output("", "rev-parse", "HEAD")
	g.tree, g.untracked = g.snapshot()
}

// After is what changed since Before: HEAD before and now, and the files
// whose content changed, tracked ones, committed or not, and untracked
// ones.
func (g *Workspace) After() Changes {
	if !g.inRepo {
		return Changes{}
	}
	now, _ := g.output("", "rev-parse", "HEAD")
	tree, untracked := g.snapshot()
	set := lines(g.output("", "diff", "--name-only", g.tree, tree))
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
	var changed []string
	for f := range set {
		if !strings.HasPrefix(f, ".rooda/") { // rooda's own records
			changed = append(changed, f)
		}
	}
	slices.Sort(changed)
	return Changes{InRepo: true, HeadBefore: g.head, HeadAfter: now, Files: changed}
}

// snapshot is a tree of the working tree's tracked files (a stash commit
// that touches nothing, else HEAD, else the empty tree) and the untracked
// files with the hashes of their content.
func (g *Workspace) snapshot() (string, map[string]string) {
	tree, ok := g.output("", "stash", "create")
	if !ok || tree == "" {
		if tree, ok = g.output("", "rev-parse", "HEAD"); !ok {
			tree = emptyTree
		}
	}
	var files []string
	for f := range lines(g.output("", "ls-files", "--others", "--exclude-standard")) {
		files = append(files, f)
	}
	slices.Sort(files)
	hashes := map[string]string{}
	if len(files) > 0 {
		out, _ := g.output(strings.Join(files, "\n")+"\n", "hash-object", "--stdin-paths")
		for i, h := range strings.Split(out, "\n") {
			if i < len(files) {
				hashes[files[i]] = h
			}
		}
	}
	return tree, hashes
}

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
