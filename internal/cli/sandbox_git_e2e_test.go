package cli

import (
	"cmp"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"rooda/host/sandbox"
)

// These tests hold that git is no way out of sandbox: workspace: what an
// agent writes in a repository's .git, or in a worktree's .git file, is
// never run by rooda's own git (its looks after each iteration,
// git_merge), outside the sandbox.

// gitEscape is a repository whose script runs hostile agents under
// sandbox: workspace; a program they plant, run outside the sandbox,
// writes in out, which the agents themselves cannot write.
type gitEscape struct {
	*repoWorkspace
	rec, out string
	// guard bounds a run that may rightly take long; 0 is twice
	// hangGuard: a run of these makes worktrees, commits and merges, a
	// dozen git processes and more, and the one at the end of a CI run
	// with both cores busy took 30 s to end its loop.
	guard time.Duration
}

func newGitEscape(t *testing.T) *gitEscape {
	t.Helper()
	if sandbox.ABI() < 6 {
		t.Skipf("SKIPPED: this kernel's Landlock ABI is %d; the sandbox's tests need 6", sandbox.ABI())
	}
	w := &gitEscape{repoWorkspace: newRepoWorkspace(t)}
	w.rec, w.out = filepath.Join(w.dir, "rec"), filepath.Join(w.dir, "out")
	must(t, os.Mkdir(w.rec, 0o755))
	must(t, os.Mkdir(w.out, 0o755))
	w.write("repo/a.txt", "a\n")
	w.git("add", "a.txt")
	w.git("commit", "-qm", "a")
	return w
}

// agent writes the script of the loop named name: an iteration for each
// line, run in sh, the last one signalling SUCCESS, its records kept
// where the sandbox lets it write.
func (w *gitEscape) agent(name string, lines ...string) {
	w.t.Helper()
	var steps []step
	for _, line := range lines {
		steps = append(steps, step{"shell": line, "output": "working\n"})
	}
	steps[len(steps)-1]["output"] = successSignal
	data, _ := json.Marshal(map[string]any{"record": w.rec, "steps": steps})
	w.write(name+".json", string(data))
}

// pwned is the shell line a planted program, what, runs: it writes its
// user to out/what, and passes its input on (a clean filter's duty).
func (w *gitEscape) pwned(what string) string { return "sh -c 'id > " + w.out + "/" + what + "; cat'" }

// run runs the script script under sandbox: workspace and returns how it
// went, and fails the test where anything the agents planted ran.
func (w *gitEscape) run(script string) outcome {
	w.t.Helper()
	w.write("escape.star", script)
	cmd := exec.Command(binary(w.t), "script", "run", filepath.Join(w.dir, "escape.star"), "--sandbox", "workspace", "--sandbox-write", w.rec, "--", w.agentLine())
	cmd.Dir, cmd.Env = w.repo, w.env
	o := w.waitWithin(w.start(cmd), cmp.Or(w.guard, 2*hangGuard))
	if found, _ := filepath.Glob(filepath.Join(w.out, "*")); len(found) > 0 {
		data, _ := os.ReadFile(found[0])
		w.t.Errorf("a program the agent planted ran outside the sandbox: %v (%s)\n%s", found, data, o.stderr)
	}
	return o
}

// agentOutput is what the agents printed, all iterations of the run.
func (w *gitEscape) agentOutput() string {
	return strings.Join(globText(w.t, filepath.Join(w.repo, ".rooda", "runs", "*", "iterations", "*", "output.txt")), "\n")
}

// TestSandboxGitConfigRunsNothing: an agent in the repository itself
// sets core.fsmonitor (in .git/config, and in the config.worktree a
// repository with extensions.worktreeConfig reads, which it had none
// of), writes hooks and changes a file; rooda's look after its
// iteration, and a git_merge() after, run none of it.
func TestSandboxGitConfigRunsNothing(t *testing.T) {
	t.Parallel()
	w := newGitEscape(t)
	w.git("config", "core.repositoryformatversion", "1")
	w.git("config", "extensions.worktreeConfig", "true")
	w.agent("hostile", `(touch `+w.out+`/direct) 2>/dev/null && echo direct-written || echo direct-refused; `+
		`(git config core.fsmonitor "`+w.pwned("fsmonitor")+`") 2>/dev/null && echo config-written || echo config-refused; `+
		`(git config --worktree core.fsmonitor "`+w.pwned("fsmonitor-worktree")+`") 2>/dev/null && echo worktree-config-written || echo worktree-config-refused; `+
		`for h in pre-commit pre-merge-commit post-merge post-checkout reference-transaction; do `+
		`({ echo '#!/bin/sh'; echo "`+w.pwned("hook-$h")+` </dev/null"; } > .git/hooks/$h && chmod +x .git/hooks/$h) 2>/dev/null && echo hook-written || echo hook-refused; done; `+
		`(echo x > .git/commondir) 2>/dev/null; `+
		`echo change >> a.txt`)
	o := w.run(`wt = worktree("w")
run(["sh", "-c", "echo w > w.txt && git add w.txt && git commit -qm w"], dir = wt)
run(["sh", "-c", "echo m > m.txt && git add m.txt && git commit -qm m"])
iterate(compose("hostile", act = [fragment(content = "Work.")]), agent = args[0], max_iterations = 1)
print("merged:", git_merge(wt).merged)
`)
	o.expect(t, 0, "merged: True")
	out := w.agentOutput()
	if !strings.Contains(out, "direct-refused") {
		t.Errorf("the agent wrote outside its workspace directly:\n%s", out)
	}
	// Where the agent has a mount namespace, .git's config and hooks are
	// covered: its writes are refused, and the user's own git, later,
	// finds none of them either.
	if !w.covered() {
		t.Log("NOT TESTED: no mount namespace here; .git's settings are not covered, only ignored by rooda's git")
		return
	}
	if strings.Contains(out, "-written") {
		t.Errorf("the agent wrote in .git:\n%s", out)
	}
	for _, name := range []string{"config", "config.worktree"} {
		if config, _ := os.ReadFile(filepath.Join(w.repo, ".git", name)); strings.Contains(string(config), "fsmonitor") {
			t.Errorf("the agent's core.fsmonitor is in .git/%s:\n%s", name, config)
		}
	}
	if _, err := os.Stat(filepath.Join(w.repo, ".git", "commondir")); !os.IsNotExist(err) {
		t.Errorf("the commondir the agent planted is left: %v", err)
	}
	o.expect(t, 0, "Sandbox: the agent planted "+filepath.Join(w.repo, ".git", "commondir")+", which points git elsewhere: removed")
}

// covered reports whether the first iteration's agent had git's
// settings covered, as its meta.json says.
func (w *gitEscape) covered() bool {
	w.t.Helper()
	metas, _ := filepath.Glob(filepath.Join(w.repo, ".rooda", "runs", "*", "iterations", "0001", "meta.json"))
	if len(metas) == 0 {
		w.t.Fatal("no meta.json")
	}
	var meta struct{ Sandbox sandbox.Spec }
	must(w.t, json.Unmarshal([]byte(readText(w.t, metas[0])), &meta))
	return len(meta.Sandbox.ReadOnly) > 0
}

// TestSandboxWorktreeGitFileRunsNothing: a worktree() agent makes a
// repository of its own whose config runs programs (core.fsmonitor, a
// clean filter its attributes select for every file), points its
// worktree's .git file at it and changes a file; rooda's look after its
// iteration, and the git_merge() after, run none of it.
func TestSandboxWorktreeGitFileRunsNothing(t *testing.T) {
	t.Parallel()
	w := newGitEscape(t)
	w.agent("hostile", `cp -r "$(git rev-parse --git-common-dir)" evil && `+
		`git --git-dir=evil config core.bare false && `+
		`git --git-dir=evil config core.fsmonitor "`+w.pwned("fsmonitor")+`" && `+
		`git --git-dir=evil config filter.x.clean "`+w.pwned("clean")+`" && `+
		`echo '* filter=x' > evil/info/attributes && echo evil-made; `+
		`(echo "gitdir: $PWD/evil" > .git) 2>/dev/null && echo gitfile-written || echo gitfile-refused; `+
		`echo b > a.txt`) // of a.txt's size: git reads it, through the filter, to compare
	o := w.run(`wt = worktree("w")
iterate(compose("hostile", act = [fragment(content = "Work.")]), agent = args[0], worktree = wt, max_iterations = 1)
run(["sh", "-c", "echo m > m.txt && git add m.txt && git commit -qm m"])
print("merged:", git_merge(wt).merged)
`)
	o.expect(t, 0, "merged: True")
	if out := w.agentOutput(); !strings.Contains(out, "evil-made") {
		t.Errorf("the agent could not make its repository (the test's premise):\n%s", out)
	}
	if w.covered() && !strings.Contains(w.agentOutput(), "gitfile-refused") {
		t.Errorf("the worktree's .git file, covered, was rewritten:\n%s", w.agentOutput())
	}
}

// TestSandboxWorktreeAgentMovesOnlyItsBranch: a worktree() agent that
// moves main, retags, deletes a tag and the repository's objects, and
// commits on its own branch, leaves main, the tag and the objects as
// they were; its commit, in the next iteration, lands on its branch, and
// git_merge() merges it.
func TestSandboxWorktreeAgentMovesOnlyItsBranch(t *testing.T) {
	t.Parallel()
	w := newGitEscape(t)
	w.git("tag", "v1")
	w.git("commit", "-q", "--allow-empty", "-m", "second")
	main, tag := w.git("rev-parse", "main"), w.git("rev-parse", "v1")
	try := func(what, line string) string {
		return `(` + line + `) 2>/dev/null; echo ` + what + `-done; `
	}
	w.agent("hostile", try("main", `git update-ref refs/heads/main HEAD~2`)+
		try("branch", `git branch -f main HEAD~2`)+
		try("tag", `git tag -f v1 HEAD`)+
		try("tag-delete", `git tag -d v1`)+
		try("new-tag", `git tag evil`)+
		try("objects", `rm -rf "$(git rev-parse --git-common-dir)"/objects/*`),
		`echo own > own.txt && git add own.txt && git commit -qm own && echo own-committed`)
	o := w.run(`wt = worktree("w")
iterate(compose("hostile", act = [fragment(content = "Work.")]), agent = args[0], worktree = wt, max_iterations = 2)
print("merged:", git_merge(wt).merged)
`)
	o.expect(t, 0, "merged: True")
	if got := w.git("rev-parse", "main~1"); got != main {
		t.Errorf("main~1 is %s, want %s: main moved otherwise than by the merge", got, main)
	}
	if got := w.git("rev-parse", "v1"); got != tag {
		t.Errorf("tag v1 is %s, want %s", got, tag)
	}
	if tags := w.git("tag", "--list"); tags != "v1" {
		t.Errorf("tags: %q, want v1 alone", tags)
	}
	if subjects := strings.Split(w.git("log", "--format=%s", "main"), "\n"); !slices.Contains(subjects, "own") {
		t.Errorf("the agent's own commit was not merged: %q\n%s", subjects, w.agentOutput())
	}
	w.git("fsck", "--no-progress", "--no-dangling")
}

// TestSandboxWorktreeLargeCommitMerges: a worktree() agent's commit
// larger than what git may print to rooda (64 MiB) is taken onto its
// branch and merged.
func TestSandboxWorktreeLargeCommitMerges(t *testing.T) {
	t.Parallel()
	w := newGitEscape(t)
	// 70 MB through git add, pack-objects, index-pack and the merge: on a
	// machine whose cores are busy (CI's) it took over a minute, nearly
	// all of it zlib's; stored, the size is what counts.
	w.git("config", "core.compression", "0")
	w.guard = 5 * time.Minute
	w.agent("big", `head -c 70000000 /dev/urandom > big && git add big && git commit -qm big && echo big-committed`)
	o := w.run(`wt = worktree("w")
iterate(compose("big", act = [fragment(content = "Work.")]), agent = args[0], worktree = wt, max_iterations = 1)
print("merged:", git_merge(wt).merged)
`)
	o.expect(t, 0, "merged: True")
	if size := w.git("cat-file", "-s", "main:big"); size != "70000000" {
		t.Errorf("main's big is %q bytes\n%s", size, o.stderr)
	}
}

// TestSandboxWorktreePlantedObjectRefused: a worktree() agent that
// commits, then rewrites the file of its blob with another content, has
// its commit refused with an error that says where its objects are
// kept; the repository takes neither the object nor the branch's move.
func TestSandboxWorktreePlantedObjectRefused(t *testing.T) {
	t.Parallel()
	w := newGitEscape(t)
	tmp := t.TempDir() // where rooda keeps what it could not take
	w.env = append(w.env, "TMPDIR="+tmp)
	w.agent("planter", `echo good > f && git add f && git commit -qm f && `+
		`o="$(git rev-parse --git-common-dir)/objects/$(git rev-parse HEAD:f | sed 's|^..|&/|')" && `+
		`chmod u+w "$o" && echo evil | git hash-object --stdin -w >/dev/null && `+
		`cp "$(git rev-parse --git-common-dir)/objects/$(echo evil | git hash-object --stdin | sed 's|^..|&/|')" "$o" && echo planted`)
	o := w.run(`wt = worktree("w")
iterate(compose("planter", act = [fragment(content = "Work.")]), agent = args[0], worktree = wt, max_iterations = 1)
print("merged:", git_merge(wt).merged)
`)
	if !strings.Contains(w.agentOutput(), "planted") {
		t.Fatalf("the agent could not plant its object (the test's premise):\n%s", w.agentOutput())
	}
	o.expect(t, 0, "ERROR: Sandbox: what the agent made on its branch refs/heads/rooda/", "was not taken", "the agent's objects are kept in ")
	if got := strings.Split(w.git("log", "--all", "--format=%s"), "\n"); slices.Contains(got, "f") {
		t.Errorf("the agent's commit reached main: %q", got)
	}
	// What the agent made is in its worktree alone, uncommitted there
	// since its commit was refused: the run keeps it. Its HEAD's reflog
	// names the refused commit, which goes with it.
	if !strings.Contains(o.stderr, "kept worktree w (it holds uncommitted work, which no merge took)") {
		t.Errorf("the worktree holding the refused work is not kept:\n%s", o.stderr)
	}
	w.git("worktree", "remove", "--force", filepath.Join(w.repo, ".rooda", "worktrees", w.runOfWorktrees(), "w"))
	w.git("fsck", "--no-progress", "--no-dangling")
	if kept, _ := filepath.Glob(filepath.Join(tmp, "rooda-unimported-*", "git", "refs", "*")); len(kept) != 1 {
		t.Errorf("the agent's branch is not kept: %v", kept)
	}
}
