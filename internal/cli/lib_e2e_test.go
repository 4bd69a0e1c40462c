package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// gitRepo makes a git repository holding a library under star/, and
// returns a function that publishes a version of it at a tag.
func gitRepo(t *testing.T) (string, func(value, tag string) string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := filepath.Join(t.TempDir(), "team")
	git := func(args ...string) string {
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.org", "-c", "init.defaultBranch=main"}, args...)...)
		cmd.Dir = filepath.Dir(dir)
		if args[0] != "init" {
			cmd.Dir = dir
		}
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	git("init", "--quiet", dir)
	return dir, func(value, tag string) string {
		must(t, os.MkdirAll(filepath.Join(dir, "star"), 0o755))
		must(t, os.WriteFile(filepath.Join(dir, "star", "greet.star"), []byte("greeting = '"+value+"'\n"), 0o644))
		git("add", ".")
		git("commit", "--quiet", "-m", value)
		git("tag", "--force", tag)
		return git("rev-parse", "HEAD")
	}
}

// TestPinnedGitLibrary: a library published at tag v1 loads as @team//,
// is pinned in rooda.lock; a moved tag is a hash mismatch until rooda lib
// update moves the pin.
func TestPinnedGitLibrary(t *testing.T) {
	t.Parallel()
	repo, publish := gitRepo(t)
	first := publish("hello", "v1")
	w := newWorkspace(t, step{})
	w.env = append(w.env, "XDG_CACHE_HOME="+filepath.Join(w.dir, "cache"))
	w.write("rooda-config.yml", "libraries:\n  team: {git: file://"+repo+", ref: v1, path: star}\n")
	w.write("main.star", "load('@team//greet.star', 'greeting')\nprint(greeting)\n")
	rooda := func(args ...string) outcome {
		cmd := exec.Command(binary(t), args...)
		cmd.Dir, cmd.Env = w.dir, w.env
		return w.wait(w.start(cmd))
	}

	if o := rooda("script", "run", "main.star"); o.code != 0 || o.stderr != "hello\n" {
		t.Fatalf("first run: exit %d\n%s", o.code, o.stderr)
	}
	lock, err := os.ReadFile(filepath.Join(w.dir, "rooda.lock"))
	if err != nil || !strings.Contains(string(lock), `"commit": "`+first+`"`) || !strings.Contains(string(lock), `"sha256": "`) {
		t.Fatalf("rooda.lock: %v\n%s", err, lock)
	}
	if o := rooda("lib", "list"); o.code != 0 || !strings.Contains(o.stdout, "team\tfile://"+repo+" v1 star\tpinned "+first[:12]+", cached") {
		t.Errorf("lib list: exit %d\n%s%s", o.code, o.stdout, o.stderr)
	}

	second := publish("moved", "v1")
	if o := rooda("script", "run", "main.star", "--offline"); o.code != 0 || o.stderr != "hello\n" {
		t.Errorf("the pin did not hold: exit %d\n%s", o.code, o.stderr)
	}
	o := rooda("lib", "fetch")
	if o.code != 1 || !strings.Contains(o.stderr, "library team: hash mismatch") || !strings.Contains(o.stderr, "rooda lib update team") {
		t.Errorf("fetch after the tag moved: exit %d\n%s", o.code, o.stderr)
	}
	// A machine with an empty cache (CI) runs what is pinned.
	w.env = append(w.env, "XDG_CACHE_HOME="+filepath.Join(w.dir, "fresh-cache"))
	if o := rooda("script", "run", "main.star"); o.code != 0 || o.stderr != "hello\n" {
		t.Errorf("a fresh cache after the tag moved: exit %d\n%s", o.code, o.stderr)
	}

	o = rooda("lib", "update", "team")
	if o.code != 0 || o.stdout != "team: "+first[:12]+" → "+second[:12]+"\n" {
		t.Errorf("update: exit %d\n%s%s", o.code, o.stdout, o.stderr)
	}
	if o := rooda("script", "run", "main.star"); o.code != 0 || o.stderr != "moved\n" {
		t.Errorf("after update: exit %d\n%s", o.code, o.stderr)
	}
}
