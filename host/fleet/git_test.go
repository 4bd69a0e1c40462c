package fleet

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestTheFleetsGitRunsNoProgramOfTheRepository: the repository a run
// clones is the agents' to write, and the user's git configuration may
// name a hooks directory in the working tree (husky's .husky): the
// fleet's git runs no hook at checkout nor at push, and a repository
// named like an option (--upload-pack=…) is taken as a repository, not
// as an option that runs a command.
func TestTheFleetsGitRunsNoProgramOfTheRepository(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	ctx := context.Background()
	marks := t.TempDir()
	global := filepath.Join(t.TempDir(), "gitconfig")
	if err := os.WriteFile(global, []byte("[core]\n\thooksPath = .husky\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GIT_CONFIG_GLOBAL", global)

	src := t.TempDir()
	gitRun(t, src, "init", "-q")
	hook := "#!/bin/sh\ntouch " + filepath.Join(marks, "ran") + "\n"
	if err := os.MkdirAll(filepath.Join(src, ".husky"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"post-checkout", "pre-push", "reference-transaction"} {
		if err := os.WriteFile(filepath.Join(src, ".husky", name), []byte(hook), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	gitRun(t, src, "add", ".husky")
	gitRun(t, src, "commit", "-qm", "hooks", "--no-verify")
	os.Remove(filepath.Join(marks, "ran")) // the commit's own hooks
	remote := filepath.Join(t.TempDir(), "remote.git")
	gitRun(t, src, "clone", "-q", "--bare", src, remote)
	os.Remove(filepath.Join(marks, "ran"))

	ref, err := ResolveRemoteRef(ctx, remote, "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	run := Run{Name: "hooked", Argv: RoodaArgs("build", nil), Repo: remote, Ref: ref}
	ws := filepath.Join(t.TempDir(), "hooked")
	if err := clone(ctx, ws, run); err != nil {
		t.Fatal(err)
	}
	commitIn(t, ws, "one.txt")
	os.Remove(filepath.Join(marks, "ran")) // the test's commit's
	if err := newBranchPush(ctx, ws, run, "w", 1).push(ctx, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(marks, "ran")); err == nil {
		t.Error("a hook of the repository ran at the fleet's clone, checkout or push")
	}

	if _, err := ResolveRemoteRef(ctx, "--upload-pack=touch "+filepath.Join(marks, "option")+";", "main"); err == nil {
		t.Error("a repository named like an option was resolved")
	}
	if _, err := os.Stat(filepath.Join(marks, "option")); err == nil {
		t.Error("a repository named like an option ran its command")
	}
}

// TestARemoteRefIsResolvedByItsExactName: --ref names a branch or a
// tag of the repository by its exact name: a branch named like a
// commit's hash is that branch, and main is not team/main; a hash the
// repository has no ref of is taken as a commit.
func TestARemoteRefIsResolvedByItsExactName(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	ctx := context.Background()
	src := t.TempDir()
	gitRun(t, src, "init", "-q", "-b", "trunk")
	commitIn(t, src, "one.txt")
	one := gitRun(t, src, "rev-parse", "HEAD")
	gitRun(t, src, "branch", "team/main")
	commitIn(t, src, "two.txt")
	gitRun(t, src, "branch", "cafe123")
	two := gitRun(t, src, "rev-parse", "HEAD")
	if got, err := ResolveRemoteRef(ctx, src, "cafe123"); err != nil || got != two {
		t.Errorf("the branch cafe123 resolved to %q (%v), want %s", got, err, two)
	}
	if got, err := ResolveRemoteRef(ctx, src, "main"); err == nil {
		t.Errorf("main, which the repository lacks, resolved to %s (team/main is %s)", got, one)
	}
	if got, err := ResolveRemoteRef(ctx, src, one); err != nil || got != one {
		t.Errorf("a commit's hash resolved to %q (%v), want it as it is", got, err)
	}
}
