package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestGuardGitEachWay: in a namespace made either way, the covered
// config and hooks refuse writes, .git cannot be renamed away, and a
// worktree agent's writes to the objects and its branch's ref land in
// its private directory, not in the repository.
func TestGuardGitEachWay(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	self, err := os.Executable()
	must(t, err)
	before := trampoline
	trampoline = self
	t.Cleanup(func() { trampoline = before })
	for name, way := range map[string]func(*syscall.SysProcAttr){"own namespace": ownNamespace, "user namespace": userNamespace} {
		t.Run(name, func(t *testing.T) {
			if why := try(way); why != nil {
				t.Skipf("NOT TESTED: this system makes no namespace this way: %v", why)
			}
			dir := t.TempDir()
			common := filepath.Join(dir, ".git")
			run := func(args ...string) {
				cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@example.org"}, args...)...)
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("git %v: %v\n%s", args, err, out)
				}
			}
			run("init", "-q", "-b", "main")
			run("commit", "-q", "--allow-empty", "-m", "first")
			run("branch", "rooda/r/w")
			head := strings.TrimSpace(readFile(t, filepath.Join(common, "refs", "heads", "main")))
			repo := Repo{GitDir: common, CommonDir: common, Top: dir}
			covers, pinned := coverable(repo, []string{dir})
			b := &Branch{Ref: "refs/heads/rooda/r/w", Head: head, CommonDir: common}
			must(t, privateBranch(b, t.TempDir()))
			spec := Spec{Mode: Off, Write: []string{dir}, ReadOnly: covers, Pinned: pinned, Branch: b, Outside: mountNamespace()}
			line := `(echo x >> .git/config) 2>/dev/null || echo config-refused; ` +
				`(echo x > .git/hooks/pre-commit) 2>/dev/null || echo hook-refused; ` +
				`(mv .git gone) 2>/dev/null || echo rename-refused; ` +
				`echo new > .git/objects/new && echo object-written; ` +
				`echo 0000000000000000000000000000000000000001 > .git/refs/heads/rooda/r/w && echo ref-written`
			argv, env, err := Wrap(self, spec, []string{"sh", "-c", line})
			must(t, err)
			cmd := exec.Command(argv[0], argv[1:]...)
			cmd.Dir, cmd.Env, cmd.SysProcAttr = dir, append(os.Environ(), env), &syscall.SysProcAttr{}
			way(cmd.SysProcAttr)
			out, _ := cmd.CombinedOutput()
			for _, want := range []string{"config-refused", "hook-refused", "rename-refused", "object-written", "ref-written"} {
				if !strings.Contains(string(out), want) {
					t.Errorf("%q lacks %s", out, want)
				}
			}
			if _, err := os.Stat(filepath.Join(common, "objects", "new")); err == nil {
				t.Error("the object reached the repository's objects")
			}
			if _, err := os.Stat(filepath.Join(b.Private, "objects", "new")); err != nil {
				t.Errorf("the object is not in the private layer: %v", err)
			}
			if got := strings.TrimSpace(readFile(t, filepath.Join(common, "refs", "heads", "rooda", "r", "w"))); got != head {
				t.Errorf("the repository's ref moved to %s", got)
			}
			if got := strings.TrimSpace(readFile(t, filepath.Join(b.Private, "refs", "w"))); !strings.HasSuffix(got, "1") {
				t.Errorf("the private ref is %q", got)
			}
		})
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	must(t, err)
	return string(data)
}
