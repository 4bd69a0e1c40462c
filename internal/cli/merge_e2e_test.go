package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// These tests hold that git_merge() and the end of a run never drop
// work: what an agent left uncommitted in its worktree is neither merged
// in silence nor removed with the worktree.

// shellAgent writes the fake agent's script of the loop named name: one
// iteration that runs line in sh in its worktree, then signals SUCCESS.
func (w *repoWorkspace) shellAgent(name, line string) {
	w.t.Helper()
	data, _ := json.Marshal(map[string]any{"record": w.dir, "steps": []step{{"shell": line, "output": successSignal + "\n"}}})
	w.write(name+".json", string(data))
}

// mergeScript runs a loop in a worktree for each name, at once, then
// git_merge()s each worktree, with the keyword more (", commit_leftovers
// = True"), and prints what it returned.
func (w *repoWorkspace) mergeScript(more string, names ...string) outcome {
	w.t.Helper()
	w.write("merge.star", `def task(wt):
    iterate(compose(wt.name, act = [fragment(content = "Work.")]), agent = args[0], worktree = wt, max_iterations = 1)

trees = [worktree(n) for n in args[1:]]
parallel([(task, wt) for wt in trees])
for wt in trees:
    r = git_merge(wt`+more+`)
    print("%s: merged=%s commits=%d dirty=%s" % (wt.name, r.merged, r.commits, r.dirty))
`)
	return w.roodaIn(w.repo, append([]string{"script", "run", filepath.Join(w.dir, "merge.star"), "--", w.agentLine()}, names...)...)
}

// TestMergeKeepsUncommittedWork: two loops whose agent writes out.txt
// and says SUCCESS without committing: git_merge() says there was
// nothing to merge and the work is left uncommitted (commits 0, dirty),
// and as the run ends both worktrees are kept, out.txt in them, said in
// the log with how to look at them, and in runs show.
func TestMergeKeepsUncommittedWork(t *testing.T) {
	t.Parallel()
	w := newRepoWorkspace(t)
	w.shellAgent("task-a", "echo a > out.txt")
	w.shellAgent("task-b", "echo b > out.txt")
	o := w.mergeScript("", "task-a", "task-b")
	id := w.runOfWorktrees()
	var want []string
	for _, name := range []string{"task-a", "task-b"} {
		path := filepath.Join(w.repo, ".rooda", "worktrees", id, name)
		branch := "rooda/" + id + "/" + name
		look := "to look at it: git -C " + path + " status"
		want = append(want, name+": merged=True commits=0 dirty=True\n",
			"git_merge("+name+"): nothing to merge: branch "+branch+" has no commit the checkout lacks\n",
			"git_merge("+name+"): the worktree holds uncommitted work, which was not merged; the run keeps it at "+path+"; "+look+"\n",
			"kept worktree "+name+" (it holds uncommitted work, which no merge took): "+path+", on branch "+branch+"; "+look+"; to remove it: git worktree remove "+path+" && git branch -D "+branch+"\n")
		if data, err := os.ReadFile(filepath.Join(path, "out.txt")); err != nil || string(data) != name[len(name)-1:]+"\n" {
			t.Errorf("%s's out.txt: %q, %v: the agent's work is lost", name, data, err)
		}
		show := w.roodaIn(w.repo, "runs", "show", id)
		if line := "  " + name + ": kept at " + path + ", on branch " + branch + ", as it holds uncommitted work, which no merge took; " + look + "; to remove it: git worktree remove " + path + " && git branch -D " + branch + "\n"; !strings.Contains(show.stdout, line) {
			t.Errorf("runs show lacks %q:\n%s%s", line, show.stdout, show.stderr)
		}
	}
	o.expect(t, 0, want...)
}

// TestMergeCountsCommits: a loop whose agent made two commits is merged
// with commits 2, nothing uncommitted, and its worktree and branch are
// removed as the run ends, as before.
func TestMergeCountsCommits(t *testing.T) {
	t.Parallel()
	w := newRepoWorkspace(t)
	w.shellAgent("task", "echo 1 > one.txt && git add one.txt && git commit -qm one && echo 2 > two.txt && git add two.txt && git commit -qm two")
	o := w.mergeScript("", "task")
	o.expect(t, 0, "task: merged=True commits=2 dirty=False\n")
	if strings.Contains(o.stderr, "nothing to merge") || strings.Contains(o.stderr, "kept worktree") {
		t.Errorf("a merge of two commits said otherwise:\n%s", o.stderr)
	}
	for _, f := range []string{"one.txt", "two.txt"} {
		if _, err := os.Stat(filepath.Join(w.repo, f)); err != nil {
			t.Errorf("%s was not merged: %v", f, err)
		}
	}
	w.noWorktreesLeft()
}

// TestMergeCommitsLeftovers: git_merge(wt, commit_leftovers = True)
// commits what the agent left uncommitted, as rooda with its own
// message, and merges it: commits 1, nothing left, the worktree removed.
func TestMergeCommitsLeftovers(t *testing.T) {
	t.Parallel()
	w := newRepoWorkspace(t)
	w.shellAgent("task", "echo a > out.txt && mkdir -p sub && echo b > sub/new.txt")
	o := w.mergeScript(", commit_leftovers = True", "task")
	o.expect(t, 0, "task: merged=True commits=1 dirty=False\n", "git_merge(task): committed the work the agent left uncommitted on branch rooda/")
	for _, f := range []string{"out.txt", "sub/new.txt"} {
		if _, err := os.Stat(filepath.Join(w.repo, f)); err != nil {
			t.Errorf("%s was not merged: %v", f, err)
		}
	}
	if got := w.git("log", "-1", "--format=%an <%ae>|%cn <%ce>|%s", "main"); got != "rooda <rooda@localhost>|rooda <rooda@localhost>|rooda: work the agent left uncommitted" {
		t.Errorf("the leftovers' commit: %q", got)
	}
	w.noWorktreesLeft()
}
