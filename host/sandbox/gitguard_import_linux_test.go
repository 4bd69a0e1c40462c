package sandbox

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// agentRepo is a repository with a worktree agent's branch at main's
// commit, its private directory made as the trampoline would find it.
type agentRepo struct {
	t      *testing.T
	common string
	b      *Branch
}

func newAgentRepo(t *testing.T) *agentRepo {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("SKIPPED: git is not installed")
	}
	dir := t.TempDir()
	r := &agentRepo{t: t, common: filepath.Join(dir, ".git")}
	r.git(nil, "", "init", "-q", "-b", "main", dir)
	r.git(nil, "", "commit", "-q", "--allow-empty", "-m", "first")
	r.git(nil, "", "branch", "rooda/r/w")
	r.b = &Branch{Ref: "refs/heads/rooda/r/w", Head: r.git(nil, "", "rev-parse", "main"), CommonDir: r.common}
	must(t, privateBranch(r.b, t.TempDir()))
	return r
}

// git runs git on the repository with env added, stdin given.
func (r *agentRepo) git(env []string, stdin string, args ...string) string {
	r.t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.org"}, args...)...)
	cmd.Env = append(append(os.Environ(), "GIT_DIR="+r.common), env...)
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.Output()
	if err != nil {
		r.t.Fatalf("git %v: %v", args, err)
	}
	return strings.TrimSpace(string(out))
}

// asAgent is the environment of the agent's git: its objects written to
// the overlay's upper layer.
func (r *agentRepo) asAgent() []string {
	return []string{"GIT_OBJECT_DIRECTORY=" + filepath.Join(r.b.Private, "objects"),
		"GIT_ALTERNATE_OBJECT_DIRECTORIES=" + filepath.Join(r.common, "objects")}
}

// commit has the agent commit file, holding content, on its branch.
func (r *agentRepo) commit(content string) (blob, commit string) {
	blob = r.git(r.asAgent(), content, "hash-object", "-w", "--stdin")
	tree := r.git(r.asAgent(), "100644 blob "+blob+"\tfile\n", "mktree")
	commit = r.git(r.asAgent(), "", "commit-tree", tree, "-p", r.b.Head, "-m", "the agent's")
	must(r.t, os.WriteFile(filepath.Join(r.b.Private, "refs", "w"), []byte(commit+"\n"), 0o644))
	return blob, commit
}

// TestCopyInto: a pack moved across file systems is copied under a
// temporary name and renamed, read-only as git writes packs, and no
// temporary file is left.
func TestCopyInto(t *testing.T) {
	from, dir := t.TempDir(), t.TempDir()
	src := filepath.Join(from, "pack-1.pack")
	must(t, os.WriteFile(src, []byte("PACK"), 0o600))
	to := filepath.Join(dir, "pack-1.pack")
	must(t, copyInto(dir, src, to))
	if data := readFile(t, to); data != "PACK" {
		t.Errorf("copied %q", data)
	}
	if info, err := os.Stat(to); err != nil || info.Mode().Perm() != 0o444 {
		t.Errorf("the copy: %v, %v", info.Mode(), err)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "tmp_pack_*")); len(left) > 0 {
		t.Errorf("left: %v", left)
	}
}

// TestImportRefusesBadObject: an object file the agent planted whose
// content is not what its name says is refused, loudly, whether its
// commit needs it or nothing does: it does not enter the repository,
// the branch stays, and what the agent made is kept where the error
// says.
func TestImportRefusesBadObject(t *testing.T) {
	for _, committed := range []bool{true, false} {
		t.Run(map[bool]string{true: "needed by its commit", false: "needed by nothing"}[committed], func(t *testing.T) {
			r := newAgentRepo(t)
			good := r.git(nil, "good\n", "hash-object", "--stdin")
			if committed {
				r.commit("good\n")
			}
			r.plant(good, "evil\n")
			_, err := r.b.Import(context.Background())
			if err == nil || !strings.Contains(err.Error(), "kept in") {
				t.Fatalf("Import: %v; want a refusal saying where the agent's objects are kept", err)
			}
			if got := r.git(nil, "", "rev-parse", r.b.Ref); got != r.b.Head {
				t.Errorf("the branch moved to %s", got)
			}
			if out, err := exec.Command("git", "--git-dir", r.common, "cat-file", "-e", good).CombinedOutput(); err == nil {
				t.Errorf("the planted object entered the repository: %s", out)
			}
			if !strings.Contains(err.Error(), filepath.Join(r.b.Private, "refs", "w")) {
				t.Errorf("the error does not name the kept ref: %v", err)
			}
			if _, err := os.Stat(filepath.Join(r.b.Private, "objects", good[:2], good[2:])); err != nil {
				t.Errorf("the agent's objects are not kept: %v", err)
			}
		})
	}
}

// plant writes in the upper layer, under name, the loose object file of
// a blob holding content.
func (r *agentRepo) plant(name, content string) {
	scratch := r.t.TempDir()
	real := r.git([]string{"GIT_OBJECT_DIRECTORY=" + scratch}, content, "hash-object", "-w", "--stdin")
	data, err := os.ReadFile(filepath.Join(scratch, real[:2], real[2:]))
	must(r.t, err)
	path := filepath.Join(r.b.Private, "objects", name[:2], name[2:])
	os.Remove(path)
	must(r.t, os.MkdirAll(filepath.Dir(path), 0o755))
	must(r.t, os.WriteFile(path, data, 0o444))
}
