package git

import (
	"slices"
	"strings"
)

// Workspace takes the facts of a git workspace around each iteration:
// HEAD, and the files the iteration changed — not those changed before
// it. The loop takes them once an iteration, for the record, the digest
// and the stall rule alike.
//
// A look is one `git status` (HEAD, the files that differ from HEAD or
// the index, the untracked ones), and rooda hashes the files it lists: in
// a clean tree, nothing. Where a watch of the tree says which paths
// changed since the last look, the status is of those paths only; where
// it saw none, a `git rev-parse HEAD`. A HEAD that moved adds a `git
// diff-tree` of the two commits, and untracked directories a `git
// ls-files` of their files (status.go).
type Workspace struct {
	inRepo bool
	look   looker
	// before is the state before the iteration; nil when it could not
	// be looked at.
	before *snapshot
	// last is the state After saw.
	last *snapshot
	// watch says what in the tree changed since the last look; nil
	// before the first Before, and where the tree cannot be watched.
	watch   *watch
	watched bool // a watch was tried
	// pending are the paths the watch saw that the next look has yet to
	// see (read by Snapshot before it), all set when it could not say.
	pending []string
	all     bool
	// kept is the last Snapshot's commit, and touched whether the watch
	// saw the tree change since it was taken.
	kept    *kept
	touched bool
}

// kept is a snapshot's commit, and HEAD and its branch when it was
// taken.
type kept struct{ commit, head, branch string }

// Changes are what an iteration changed in the workspace.
type Changes struct {
	// InRepo is false outside a git repository, where nothing is known,
	// and when git could not be asked.
	InRepo                bool
	HeadBefore, HeadAfter string
	// Files are the files whose content changed, tracked or not,
	// committed or not, named from the repository's top; rooda's own
	// records are left out. At most FileLimit are named, the first in
	// order; More counts the rest.
	Files []string
	More  int `json:",omitempty"`
}

// FileLimit bounds the files an iteration's changes name, for the record,
// the journal and a script alike (the same on a resume as in the run):
// an iteration that writes 50,000 files would otherwise make a meta.json
// and a journal line of 900 KB each. Past it, the change is in bulk, and
// git names the rest to whoever asks.
const FileLimit = 1000

// Changed reports whether the iteration changed anything: HEAD moved, or
// a file changed. Outside a repository it is false: nothing is known.
func (c Changes) Changed() bool {
	return c.InRepo && (c.HeadBefore != c.HeadAfter || len(c.Files) > 0)
}

// NewWorkspaceIn looks whether dir ("" is the working directory) is in a
// git repository: a parallel loop's worktree is its own workspace.
func NewWorkspaceIn(dir string) *Workspace {
	g := &Workspace{}
	g.look, g.inRepo = newLooker(dir)
	return g
}

// Before notes HEAD and the state of the working tree.
func (g *Workspace) Before() {
	if !g.inRepo {
		return
	}
	g.startWatch()
	g.before = g.refresh(g.last)
}

// startWatch watches the tree from the first look or snapshot on.
func (g *Workspace) startWatch() {
	if !g.watched {
		g.watch, g.watched = newWatch(g.look.top, g.look.records()), true
	}
}

// Snapshot keeps the workspace as it is under ref, as the package's
// Snapshot does, but where the watch saw nothing in the tree change
// since the last one and HEAD and its branch are as they were, that
// one's commit (still a loose object: no gc took it meanwhile) is kept
// under ref again, and no git runs: an iteration that changed nothing
// costs its next none. What a watch cannot see is then not kept: a file
// written through a shared mapping, and what in .git changes what git
// adds (info/exclude, an index entry marked skip-worktree); the killed
// try's partial snapshot still holds the files (Restore).
func (g *Workspace) Snapshot(ref, what string) (string, bool, error) {
	if !g.inRepo {
		return "", false, nil
	}
	g.startWatch()
	g.hold()
	head, branch := g.look.headAndBranch()
	if k := g.kept; k == nil || g.touched || k.head != head || k.branch != branch || !hasLooseObject(g.look.repo, k.commit) {
		// What changes from here on is the next snapshot's.
		g.touched = false
		commit, err := g.look.commitTree(head, branch, what)
		if err != nil {
			g.touched = true
			return "", true, err
		}
		g.kept = &kept{commit: commit, head: head, branch: branch}
	}
	return g.kept.commit, true, g.look.setRef(ref, g.kept.commit, what)
}

// hold reads what the watch saw into pending, for the next look, noting
// that the tree changed since the last snapshot; without a watch, it
// always did.
func (g *Workspace) hold() {
	if g.watch == nil {
		g.touched = true
		return
	}
	paths, all := g.watch.changes()
	g.pending, g.all = append(g.pending, paths...), g.all || all
	g.touched = g.touched || all || len(paths) > 0
}

// changes are the paths that changed since the last look, those hold
// kept first; all when the watch could not say.
func (g *Workspace) changes() (paths []string, all bool) {
	g.hold()
	paths, all = g.pending, g.all
	g.pending, g.all = nil, false
	slices.Sort(paths)
	return slices.Compact(paths), all
}

// Close lets go of the watch.
func (g *Workspace) Close() {
	if g.watch != nil {
		g.watch.close()
		g.watch = nil
	}
}

// After is what changed since Before: HEAD before and now, and the files
// whose content changed, tracked ones, committed or not, and untracked
// ones.
func (g *Workspace) After() Changes {
	if !g.inRepo {
		return Changes{}
	}
	now := g.refresh(g.before)
	g.last = now
	if g.before == nil || now == nil {
		return Changes{}
	}
	var moved map[string][2]state
	if g.before.head != now.head {
		var ok bool
		if moved, ok = g.look.moved(g.before.head, now.head); !ok {
			return Changes{}
		}
	}
	var files []string
	for _, f := range changedFiles(g.before, now, moved) {
		if !strings.HasPrefix(f, g.look.prefix+".rooda/") {
			files = append(files, f)
		}
	}
	slices.Sort(files)
	c := Changes{InRepo: true, HeadBefore: g.before.head, HeadAfter: now.head, Files: files}
	if len(files) > FileLimit {
		c.Files, c.More = slices.Clip(files[:FileLimit]), len(files)-FileLimit
	}
	return c
}

// refresh is the state of the workspace now: base, the state the last
// look saw, with the paths that the watch saw change since looked at
// again, or a whole look where that cannot be (no base, no watch, more
// changes than it can name). A whole look costs a stat of every tracked
// file and a read of every directory whose untracked files git does not
// keep: in a repository of 11,000 files, more than the rest of an
// iteration. Between two iterations, what the watch saw change is looked
// at anew, so that it is neither's: a check's output, a script's commit,
// the user's edits are never counted as the agent's.
func (g *Workspace) refresh(base *snapshot) *snapshot {
	if g.watch == nil {
		return g.look.snapshot(nil)
	}
	// What changes from now on is the next call's.
	paths, all := g.changes()
	if base == nil || all {
		return g.look.snapshot(nil)
	}
	return g.look.update(base, paths)
}

// changedFiles are the files whose state differs between two snapshots,
// moved being what differs between their HEADs. Only a file one of them
// lists or the HEADs differ in can have changed: any other is the same
// in both HEADs and matches it in both trees.
func changedFiles(before, after *snapshot, moved map[string][2]state) []string {
	// inHead is a file's state in the HEAD of one side (0 before, 1
	// after): where the HEADs differ, the diff says; elsewhere they
	// agree, and either side's status named it if it is tracked. A file
	// neither lists as tracked is in neither HEAD: git lists a file the
	// index lacks and HEAD has as deleted.
	inHead := func(f string, side int) state {
		if m, ok := moved[f]; ok {
			return m[side]
		}
		if s, ok := before.inHead[f]; ok {
			return s
		}
		return after.inHead[f]
	}
	var changed []string
	seen := map[string]bool{}
	check := func(f string) {
		if seen[f] {
			return
		}
		seen[f] = true
		was, ok := before.files[f]
		if !ok {
			was = inHead(f, 0)
		}
		is, ok := after.files[f]
		if !ok {
			is = inHead(f, 1)
		}
		if was != is {
			changed = append(changed, f)
		}
	}
	for f := range before.files {
		check(f)
	}
	for f := range after.files {
		check(f)
	}
	for f := range moved {
		check(f)
	}
	return changed
}
