package sandbox

import (
	"cmp"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestGuardGitEachWay: in a namespace made either way, the covered
// config and hooks refuse writes, .git cannot be renamed away, a
// worktree agent's writes to the objects and its branch's ref land in
// its private directory, not in the repository, and the agent holds no
// capability. The user namespace is tried as a user other than root (the
// test's own user, or nobody when the test runs as root): root, mapped to
// itself, holds every capability there and would pass where a user fails.
func TestGuardGitEachWay(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	self, err := os.Executable()
	must(t, err)
	before := trampoline
	t.Cleanup(func() { trampoline = before })
	for name, way := range map[string]func(*syscall.SysProcAttr){"own namespace": ownNamespace, "user namespace": userNamespace} {
		t.Run(name, func(t *testing.T) {
			trampoline = self
			give, scratch := func() {}, t.TempDir
			if name == "user namespace" && os.Geteuid() == 0 {
				way, trampoline, give, scratch = asNobody(t, self)
			}
			if why := try(way); why != nil {
				t.Skipf("SKIPPED: this system makes no namespace this way: %v", why)
			}
			dir := scratch()
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
			must(t, privateBranch(b, scratch()))
			give()
			spec := Spec{Mode: BestEffort, Write: []string{dir, "/dev/null"}, ReadOnly: covers, Pinned: pinned, Branch: b, Outside: mountNamespace()}
			line := `(echo x >> .git/config) 2>/dev/null || echo config-refused; ` +
				`(echo x > .git/hooks/pre-commit) 2>/dev/null || echo hook-refused; ` +
				`(mv .git gone) 2>/dev/null || echo rename-refused; ` +
				`echo new > .git/objects/new && echo object-written; ` +
				`echo 0000000000000000000000000000000000000001 > .git/refs/heads/rooda/r/w && echo ref-written; ` +
				`grep -E '^Cap(Inh|Prm|Eff|Amb):' /proc/self/status`
			argv, env, err := Wrap(trampoline, spec, []string{"sh", "-c", line})
			must(t, err)
			cmd := exec.Command(argv[0], argv[1:]...)
			cmd.Dir, cmd.Env, cmd.SysProcAttr = dir, append(os.Environ(), env), &syscall.SysProcAttr{}
			way(cmd.SysProcAttr)
			out, _ := cmd.CombinedOutput()
			for _, want := range []string{"config-refused", "hook-refused", "rename-refused", "object-written", "ref-written",
				"CapInh:\t0000000000000000", "CapPrm:\t0000000000000000", "CapEff:\t0000000000000000", "CapAmb:\t0000000000000000"} {
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

// asNobody is the user namespace as nobody (65534) makes it, for a test
// run as root: the way, the trampoline copied where nobody may run it,
// give, which hands the scratch directories to nobody once made, and
// scratch, which makes one.
func asNobody(t *testing.T, self string) (way func(*syscall.SysProcAttr), trampoline string, give func(), scratch func() string) {
	const nobody = 65534
	top, err := os.MkdirTemp("", "rooda-nobody-")
	must(t, err)
	t.Cleanup(func() { os.RemoveAll(top) })
	must(t, os.Chmod(top, 0o755))
	trampoline = filepath.Join(top, "trampoline")
	data, err := os.ReadFile(self)
	must(t, err)
	must(t, os.WriteFile(trampoline, data, 0o755))
	way = func(attr *syscall.SysProcAttr) {
		userNamespaceOf(attr, nobody, nobody)
		attr.Credential = &syscall.Credential{Uid: nobody, Gid: nobody, NoSetGroups: true}
	}
	give = func() {
		must(t, filepath.WalkDir(top, func(path string, _ fs.DirEntry, err error) error {
			return cmp.Or(err, os.Lchown(path, nobody, nobody))
		}))
	}
	scratch = func() string {
		dir, err := os.MkdirTemp(top, "")
		must(t, err)
		return dir
	}
	return way, trampoline, give, scratch
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	must(t, err)
	return string(data)
}
