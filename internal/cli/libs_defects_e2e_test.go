package cli

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// libWorkspace is a workspace whose configuration names the git library
// at repo as team, with its own cache; rooda runs the binary there.
type libWorkspace struct {
	*workspace
	cache string
}

func newLibWorkspace(t *testing.T, repo, cache string) *libWorkspace {
	t.Helper()
	w := newWorkspace(t, step{})
	w.env = append(w.env, "XDG_CACHE_HOME="+cache)
	w.write("rooda-config.yml", "libraries:\n  team: {git: file://"+repo+", ref: v1, path: star}\n")
	w.write("main.star", "load('@team//greet.star', 'greeting')\nprint(greeting)\n")
	return &libWorkspace{w, cache}
}

func (w *libWorkspace) rooda(args ...string) outcome {
	w.t.Helper()
	cmd := exec.Command(binary(w.t), args...)
	cmd.Dir, cmd.Env = w.dir, w.env
	return w.wait(w.start(cmd))
}

// pinnedHash is the sha256 rooda.lock pins for team.
func (w *libWorkspace) pinnedHash() string {
	w.t.Helper()
	data, err := os.ReadFile(filepath.Join(w.dir, "rooda.lock"))
	if err != nil {
		w.t.Fatal(err)
	}
	var lock struct {
		Libraries map[string]struct{ SHA256 string }
	}
	if err := json.Unmarshal(data, &lock); err != nil {
		w.t.Fatal(err)
	}
	return lock.Libraries["team"].SHA256
}

// cached is the path of a file of commit's library files in the cache.
func (w *libWorkspace) cached(commit, name string) string {
	return filepath.Join(w.cache, "rooda", "lib", commit, "star", name)
}

// tamper edits the cached greet.star of commit by hand.
func (w *libWorkspace) tamper(commit string) {
	w.t.Helper()
	if err := os.WriteFile(w.cached(commit, "greet.star"), []byte("greeting = 'tampered'\n"), 0o644); err != nil {
		w.t.Fatal(err)
	}
}

// TestUpdateDoesNotPinATamperedCache: after the cached files are edited,
// a run refuses them, naming the library, the file and the way out;
// rooda lib update and rooda lib fetch pin what git has (the original
// hash) and restore the cache from git.
func TestUpdateDoesNotPinATamperedCache(t *testing.T) {
	t.Parallel()
	repo, publish := gitRepo(t)
	commit := publish("hello", "v1")
	w := newLibWorkspace(t, repo, t.TempDir())
	if o := w.rooda("lib", "fetch"); o.code != 0 {
		t.Fatalf("lib fetch: exit %d\n%s", o.code, o.stderr)
	}
	pinned := w.pinnedHash()

	w.tamper(commit)
	o := w.rooda("script", "run", "main.star")
	for _, want := range []string{"Error: library team: ", "the cached files differ from git's commit " + commit[:12], "changed: greet.star", "Run rooda lib fetch to restore them from git", w.cached(commit, "")} {
		if o.code != 1 || !strings.Contains(o.stderr, want) {
			t.Errorf("a run on the tampered cache: exit %d, want %q in\n%s", o.code, want, o.stderr)
		}
	}
	if strings.Contains(o.stderr, "tampered") {
		t.Errorf("the tampered file ran:\n%s", o.stderr)
	}

	o = w.rooda("lib", "update")
	if o.code != 0 || o.stdout != "team: "+commit[:12]+", unchanged; restored the cached files from git (changed: greet.star)\n" {
		t.Errorf("lib update: exit %d\n%s%s", o.code, o.stdout, o.stderr)
	}
	if got := w.pinnedHash(); got != pinned {
		t.Errorf("lib update pinned %s, not git's %s", got, pinned)
	}
	if o := w.rooda("script", "run", "main.star"); o.code != 0 || o.stderr != "hello\n" {
		t.Errorf("after lib update: exit %d\n%s", o.code, o.stderr)
	}

	w.tamper(commit)
	o = w.rooda("lib", "fetch")
	if o.code != 0 || o.stdout != "team: v1 at "+commit[:12]+", as pinned; restored the cached files from git (changed: greet.star)\n" {
		t.Errorf("lib fetch: exit %d\n%s%s", o.code, o.stdout, o.stderr)
	}
	if o := w.rooda("script", "run", "main.star"); o.code != 0 || o.stderr != "hello\n" {
		t.Errorf("after lib fetch: exit %d\n%s", o.code, o.stderr)
	}
}

// TestFirstFetchDoesNotPinATamperedCache: a new workspace sharing a cache
// whose files were edited pins git's files, not the edited ones.
func TestFirstFetchDoesNotPinATamperedCache(t *testing.T) {
	t.Parallel()
	repo, publish := gitRepo(t)
	commit := publish("hello", "v1")
	cache := t.TempDir()
	first := newLibWorkspace(t, repo, cache)
	if o := first.rooda("lib", "fetch"); o.code != 0 {
		t.Fatalf("lib fetch: exit %d\n%s", o.code, o.stderr)
	}
	first.tamper(commit)

	second := newLibWorkspace(t, repo, cache)
	if o := second.rooda("lib", "fetch"); o.code != 0 || !strings.HasPrefix(o.stdout, "team: pinned v1 at "+commit[:12]) {
		t.Errorf("first fetch in a new workspace: exit %d\n%s%s", o.code, o.stdout, o.stderr)
	}
	if got, want := second.pinnedHash(), first.pinnedHash(); got != want {
		t.Errorf("the new workspace pinned %s, not git's %s", got, want)
	}
	if o := second.rooda("script", "run", "main.star"); o.code != 0 || o.stderr != "hello\n" {
		t.Errorf("a run in the new workspace: exit %d\n%s", o.code, o.stderr)
	}
}

// outsideFiles makes a directory outside every library, with a module and
// a fragment a library's links must not reach.
func outsideFiles(t *testing.T) string {
	t.Helper()
	// The real path, as error messages name it: the temporary directory
	// may be reached through a link itself.
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for name, content := range map[string]string{"secret.star": "greeting = 'stolen'\n", "secret.md": "OUTSIDE SECRET\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// symlink makes link point at target, failing the test if it cannot.
func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

// escapingLibrary fills dir with a library whose links leave it, one
// whose link stays inside, and the scripts of the workspace that use
// them: evil.star loads, frag.star sends host.md, up.star sends a file
// above the library.
func escapingLibrary(t *testing.T, dir, outside string) {
	t.Helper()
	must(t, os.MkdirAll(filepath.Join(dir, "sub"), 0o755))
	symlink(t, filepath.Join(outside, "secret.star"), filepath.Join(dir, "evil.star"))
	symlink(t, filepath.Join(outside, "secret.md"), filepath.Join(dir, "host.md"))
	symlink(t, "sub/real.star", filepath.Join(dir, "ok.star"))
	for name, content := range map[string]string{
		"sub/real.star": "greeting = 'inside'\n",
		"frag.star":     "p = compose('p', act = [fragment('host.md')])\n",
		"up.star":       "p = compose('p', act = [fragment('../secret.md')])\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// escapeScripts are the workspace's scripts that reach into the library.
var escapeScripts = map[string]string{
	"evil.star": "load('@team//evil.star', 'greeting')\nprint(greeting)\n",
	"frag.star": "load('@team//frag.star', 'p')\nprint(p.render())\n",
	"ok.star":   "load('@team//ok.star', 'greeting')\nprint(greeting)\n",
}

// expectRefusedLink checks that a script reaching an escaping link of the
// library failed, naming the file, where the link leads and the library.
func expectRefusedLink(t *testing.T, o outcome, file, target string) {
	t.Helper()
	want := "@team//" + file + " leads through a symbolic link to " + target + ", outside the library team"
	if o.code != 1 || !strings.Contains(o.stderr, want) || !strings.Contains(o.stderr, "a library's links must stay inside it") || strings.Contains(o.stderr, "OUTSIDE SECRET") || strings.Contains(o.stderr, "stolen") {
		t.Errorf("want exit 1 and %q, got exit %d\n%s", want, o.code, o.stderr)
	}
}

// TestGitLibrarySymlinksStayInside: a git library's links that lead out
// of it are refused by load() and fragment(); a link inside it works.
func TestGitLibrarySymlinksStayInside(t *testing.T) {
	t.Parallel()
	repo, publish := gitRepo(t)
	outside := outsideFiles(t)
	escapingLibrary(t, filepath.Join(repo, "star"), outside)
	publish("hello", "v1")
	w := newLibWorkspace(t, repo, t.TempDir())
	for name, script := range escapeScripts {
		w.write(name, script)
	}

	expectRefusedLink(t, w.rooda("script", "run", "evil.star"), "evil.star", filepath.Join(outside, "secret.star"))
	expectRefusedLink(t, w.rooda("script", "run", "frag.star"), "host.md", filepath.Join(outside, "secret.md"))
	if o := w.rooda("script", "run", "ok.star"); o.code != 0 || o.stderr != "inside\n" {
		t.Errorf("a link inside the library: exit %d\n%s", o.code, o.stderr)
	}
}

// TestGitLibraryHashCoversSymlinks: repointing a link in the cached files
// is found by the hash, as editing a file is.
func TestGitLibraryHashCoversSymlinks(t *testing.T) {
	t.Parallel()
	repo, publish := gitRepo(t)
	star := filepath.Join(repo, "star")
	must(t, os.MkdirAll(star, 0o755))
	must(t, os.WriteFile(filepath.Join(star, "one.star"), []byte("greeting = 'one'\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(star, "two.star"), []byte("greeting = 'two'\n"), 0o644))
	symlink(t, "one.star", filepath.Join(star, "current.star"))
	commit := publish("hello", "v1")
	w := newLibWorkspace(t, repo, t.TempDir())
	w.write("main.star", "load('@team//current.star', 'greeting')\nprint(greeting)\n")
	if o := w.rooda("script", "run", "main.star"); o.code != 0 || o.stderr != "one\n" {
		t.Fatalf("first run: exit %d\n%s", o.code, o.stderr)
	}

	link := w.cached(commit, "current.star")
	os.Remove(link)
	symlink(t, "two.star", link)
	o := w.rooda("script", "run", "main.star")
	if o.code != 1 || !strings.Contains(o.stderr, "the cached files differ from git's commit") || !strings.Contains(o.stderr, "changed: current.star") {
		t.Errorf("a repointed link: exit %d\n%s", o.code, o.stderr)
	}
}

// TestLocalLibrarySymlinksStayInside: a directory library is confined as
// a git one is, also when the library's own directory is reached through
// a link; the workspace's own scripts are the user's, and not confined.
func TestLocalLibrarySymlinksStayInside(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, step{})
	outside := outsideFiles(t)
	w.write("secret.md", "OUTSIDE SECRET\n")
	escapingLibrary(t, filepath.Join(w.dir, "team"), outside)
	w.write("rooda-config.yml", "libraries:\n  team: team\n")
	for name, script := range escapeScripts {
		w.write(name, script)
	}
	w.write("up.star", "load('@team//up.star', 'p')\nprint(p.render())\n")
	symlink(t, filepath.Join(outside, "secret.star"), filepath.Join(w.dir, "mine.star"))
	w.write("mine-main.star", "load('mine.star', 'greeting')\nprint(greeting)\n")
	symlink(t, filepath.Join(w.dir, "team"), filepath.Join(w.dir, "linked-team"))

	expectRefusedLink(t, w.runScript("evil.star"), "evil.star", filepath.Join(outside, "secret.star"))
	expectRefusedLink(t, w.runScript("frag.star"), "host.md", filepath.Join(outside, "secret.md"))
	o := w.runScript("up.star")
	if o.code != 1 || !strings.Contains(o.stderr, "@team//../secret.md leaves the library") || strings.Contains(o.stderr, "OUTSIDE SECRET") {
		t.Errorf("a fragment above the library: exit %d\n%s", o.code, o.stderr)
	}
	if o := w.runScript("ok.star"); o.code != 0 || o.stderr != "inside\n" {
		t.Errorf("a link inside the library: exit %d\n%s", o.code, o.stderr)
	}
	if o := w.runScript("ok.star", "--lib", "team=linked-team"); o.code != 0 || o.stderr != "inside\n" {
		t.Errorf("a library reached through a link: exit %d\n%s", o.code, o.stderr)
	}
	expectRefusedLink(t, w.runScript("evil.star", "--lib", "team=linked-team"), "evil.star", filepath.Join(outside, "secret.star"))
	if o := w.runScript("mine-main.star"); o.code != 0 || o.stderr != "stolen\n" {
		t.Errorf("the workspace's own link: exit %d\n%s", o.code, o.stderr)
	}
}
