package libs

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"rooda/host/config"
)

// repo is a git repository made for a test, with a library under star/.
type repo struct {
	t   *testing.T
	dir string
}

func newRepo(t *testing.T) *repo {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	r := &repo{t: t, dir: filepath.Join(t.TempDir(), "team")}
	r.git("init", "--quiet", r.dir)
	return r
}

func (r *repo) git(args ...string) string {
	r.t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=test", "-c", "user.email=test@example.org", "-c", "init.defaultBranch=main"}, args...)...)
	if len(args) > 0 && args[0] != "init" {
		cmd.Dir = r.dir
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		r.t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// publish commits star/lib.star with content and points tag at it.
func (r *repo) publish(content, tag string) string {
	r.t.Helper()
	os.MkdirAll(filepath.Join(r.dir, "star"), 0o755)
	if err := os.WriteFile(filepath.Join(r.dir, "star", "lib.star"), []byte(content), 0o644); err != nil {
		r.t.Fatal(err)
	}
	r.git("add", ".")
	r.git("commit", "--quiet", "-m", content)
	r.git("tag", "--force", tag)
	return r.git("rev-parse", "HEAD")
}

func libraries(r *repo, lockDir string) map[string]config.Value[config.Library] {
	return map[string]config.Value[config.Library]{
		"team":  {V: config.Library{Git: "file://" + r.dir, Ref: "v1", Path: "star", LockDir: lockDir}, Set: true},
		"local": {V: config.Library{Dir: "/somewhere/local"}, Set: true},
	}
}

func read(t *testing.T, dir string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "lib.star"))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestPinnedLibrary follows a library's life: pinned on first use, held
// by the pin when its tag moves, the move found as a hash mismatch by a
// fetch or on a machine with an empty cache, and taken by update.
func TestPinnedLibrary(t *testing.T) {
	ctx := context.Background()
	r := newRepo(t)
	first := r.publish("v = 1\n", "v1")
	ws := t.TempDir()
	libs := libraries(r, ws)
	m := &Manager{CacheDir: filepath.Join(t.TempDir(), "cache")}

	dirs, err := m.Dirs(ctx, libs)
	if err != nil {
		t.Fatal(err)
	}
	if read(t, dirs["team"]) != "v = 1\n" || dirs["local"] != "/somewhere/local" {
		t.Fatalf("dirs %v", dirs)
	}
	lk, err := readLock(ws)
	if pin := lk.Libraries["team"]; err != nil || pin.Commit != first || len(pin.SHA256) != 64 || pin.Ref != "v1" || pin.Path != "star" {
		t.Fatalf("rooda.lock: %+v, %v", lk, err)
	}
	pinned := lk.Libraries["team"].SHA256

	second := r.publish("v = 2\n", "v1") // the tag moves
	if dirs, err = m.Dirs(ctx, libs); err != nil || read(t, dirs["team"]) != "v = 1\n" {
		t.Errorf("the pin did not hold: %v", err)
	}
	_, err = m.Fetch(ctx, libs)
	if err == nil || !strings.Contains(err.Error(), "hash mismatch") || !strings.Contains(err.Error(), pinned) || !strings.Contains(err.Error(), "rooda lib update team") {
		t.Errorf("fetch after the tag moved: %v", err)
	}
	// A machine with an empty cache gets what is pinned, not what the tag
	// names now.
	fresh := &Manager{CacheDir: filepath.Join(t.TempDir(), "cache")}
	if dirs, err := fresh.Dirs(ctx, libs); err != nil || read(t, dirs["team"]) != "v = 1\n" {
		t.Errorf("an empty cache after the tag moved: %v", err)
	}

	lines, err := m.Update(ctx, libs, []string{"team"})
	if err != nil || len(lines) != 1 || lines[0] != "team: "+first[:12]+" → "+second[:12] {
		t.Fatalf("update: %q, %v", lines, err)
	}
	if dirs, err = m.Dirs(ctx, libs); err != nil || read(t, dirs["team"]) != "v = 2\n" {
		t.Errorf("after update: %v", err)
	}
	if lines, err := m.Fetch(ctx, libs); err != nil || lines[0] != "team: v1 at "+second[:12]+", as pinned" {
		t.Errorf("fetch after update: %q, %v", lines, err)
	}
}

// TestTamperedCacheAndOffline: a run refuses cached files edited after
// the fetch, naming them and the way out; a fetch restores them from git
// and says so; a pin git's files do not match is told apart.
func TestTamperedCacheAndOffline(t *testing.T) {
	ctx := context.Background()
	r := newRepo(t)
	r.publish("v = 1\n", "v1")
	ws := t.TempDir()
	libs := libraries(r, ws)
	m := &Manager{CacheDir: filepath.Join(t.TempDir(), "cache")}
	dirs, err := m.Dirs(ctx, libs)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dirs["team"], "lib.star"), []byte("v = 666\n"), 0o644)
	os.WriteFile(filepath.Join(dirs["team"], "extra.star"), []byte("x = 1\n"), 0o644)
	_, err = m.Dirs(ctx, libs)
	if err == nil || !strings.Contains(err.Error(), "hash mismatch: the cached files differ from git's commit") || !strings.Contains(err.Error(), "(changed: lib.star; added: extra.star) in "+dirs["team"]) || !strings.Contains(err.Error(), "Run rooda lib fetch to restore them from git") {
		t.Errorf("tampered cache: %v", err)
	}
	lines, err := m.Fetch(ctx, libs)
	if err != nil || len(lines) != 1 || !strings.HasSuffix(lines[0], ", as pinned; restored the cached files from git (changed: lib.star; added: extra.star)") {
		t.Errorf("fetch: %q, %v", lines, err)
	}
	if read(t, dirs["team"]) != "v = 1\n" {
		t.Error("the cache was not restored")
	}
	lk, _ := readLock(ws)
	pin := lk.Libraries["team"]
	pin.SHA256 = strings.Repeat("0", 64)
	lk.Libraries["team"] = pin
	lk.write(ws)
	if _, err := m.Dirs(ctx, libs); err == nil || !strings.Contains(err.Error(), "but git's files of that commit hash to") || !strings.Contains(err.Error(), "rooda lib update team") {
		t.Errorf("a pin git does not match: %v", err)
	}

	offline := &Manager{CacheDir: filepath.Join(t.TempDir(), "cache"), Offline: true}
	if _, err := offline.Dirs(ctx, libs); err == nil || !strings.Contains(err.Error(), "--offline") {
		t.Errorf("offline with an empty cache: %v", err)
	}
	lines, err = m.List(libs)
	if err != nil || len(lines) != 2 || !strings.Contains(lines[1], "\tpinned ") || !strings.HasPrefix(lines[0], "local\t/somewhere/local") {
		t.Errorf("list: %q, %v", lines, err)
	}
}

func TestConfigChangeNeedsUpdate(t *testing.T) {
	ctx := context.Background()
	r := newRepo(t)
	r.publish("v = 1\n", "v1")
	r.publish("v = 2\n", "v2")
	ws := t.TempDir()
	libs := libraries(r, ws)
	m := &Manager{CacheDir: filepath.Join(t.TempDir(), "cache")}
	if _, err := m.Dirs(ctx, libs); err != nil {
		t.Fatal(err)
	}
	lib := libs["team"]
	lib.V.Ref = "v2"
	libs["team"] = lib
	if _, err := m.Dirs(ctx, libs); err == nil || !strings.Contains(err.Error(), "run rooda lib update team") {
		t.Errorf("a new ref without update: %v", err)
	}
	if _, err := m.Update(ctx, libs, []string{"taem"}); err == nil || !strings.Contains(err.Error(), "did you mean team?") {
		t.Errorf("unknown name: %v", err)
	}
}

// TestCorruptLock: a lock whose commit is not a commit id is refused, with
// the way out.
func TestCorruptLock(t *testing.T) {
	ws := t.TempDir()
	os.WriteFile(filepath.Join(ws, LockFile), []byte(`{"libraries": {"team": {"git": "x", "ref": "v1", "commit": "../../etc", "sha256": "x"}}}`), 0o644)
	_, err := readLock(ws)
	if err == nil || !strings.Contains(err.Error(), "malformed commit") || !strings.Contains(err.Error(), "delete it and run rooda lib fetch") {
		t.Errorf("error %v", err)
	}
}

// TestConcurrentFirstUse: runs that fetch the same library at once all
// succeed.
func TestConcurrentFirstUse(t *testing.T) {
	r := newRepo(t)
	r.publish("v = 1\n", "v1")
	ws := t.TempDir()
	cache := filepath.Join(t.TempDir(), "cache")
	errs := make(chan error, 4)
	for range 4 {
		go func() {
			m := &Manager{CacheDir: cache}
			_, err := m.Dirs(context.Background(), libraries(r, ws))
			errs <- err
		}()
	}
	for range 4 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

// TestLibFlagReplacesAGitLibrary: --lib for a git library's name makes it
// a directory, and nothing is fetched.
func TestLibFlagReplacesAGitLibrary(t *testing.T) {
	libs := map[string]config.Value[config.Library]{"team": {V: config.Library{Git: "file:///nowhere/at/all", Ref: "v1", LockDir: t.TempDir()}, Set: true}}
	all, err := WithFlags(libs, []string{"team=" + t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	m := &Manager{CacheDir: filepath.Join(t.TempDir(), "cache"), Offline: true}
	if dirs, err := m.Dirs(context.Background(), all); err != nil || dirs["team"] == "" {
		t.Errorf("dirs %v, %v", dirs, err)
	}
	if _, err := WithFlags(libs, []string{"team"}); err == nil {
		t.Error("--lib without =DIR accepted")
	}
	// Nothing waits for libraries that are all directories (script
	// check catches no signal for them); a git one may.
	if Waits(all) || !Waits(libs) {
		t.Errorf("waits for directories %t, for a git library %t", Waits(all), Waits(libs))
	}
}

// TestHashCoversSymlinks: a library of regular files hashes as the first
// pins did; a link in it is covered by its target, so that repointing it
// changes the hash.
func TestHashCoversSymlinks(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.star"), []byte("a = 1\n"), 0o644)
	sum, err := hashDir(dir)
	if want := sha256.Sum256([]byte("a.star\x00a = 1\n\x00")); err != nil || sum != hex.EncodeToString(want[:]) {
		t.Errorf("regular files: %s, %v", sum, err)
	}
	// A library whose path is a link is hashed by the files it leads to.
	root := filepath.Join(t.TempDir(), "root")
	os.Symlink(dir, root)
	if through, err := hashDir(root); err != nil || through != sum {
		t.Errorf("through a link: %s, %v", through, err)
	}
	os.Symlink("a.star", filepath.Join(dir, "b.star"))
	linked, _ := hashDir(dir)
	os.Remove(filepath.Join(dir, "b.star"))
	os.Symlink("/etc/hostname", filepath.Join(dir, "b.star"))
	repointed, _ := hashDir(dir)
	if linked == sum || repointed == linked || repointed == sum {
		t.Errorf("hashes %s, %s, %s", sum, linked, repointed)
	}
}

// TestOutside: links inside a library are its files, links out of it
// (directly, through a directory, by ..) are not, also when the library
// is reached through a link; a path that does not resolve is left to the
// read.
func TestOutside(t *testing.T) {
	base := t.TempDir()
	lib, outside := filepath.Join(base, "lib"), filepath.Join(base, "outside")
	os.MkdirAll(filepath.Join(lib, "sub"), 0o755)
	os.MkdirAll(outside, 0o755)
	os.WriteFile(filepath.Join(lib, "sub", "real.star"), nil, 0o644)
	os.WriteFile(filepath.Join(outside, "secret"), nil, 0o644)
	os.Symlink("sub/real.star", filepath.Join(lib, "ok.star"))
	os.Symlink("../outside/secret", filepath.Join(lib, "up"))
	os.Symlink(outside, filepath.Join(lib, "dir"))
	os.Symlink("../outside/none", filepath.Join(lib, "dangling"))
	os.Symlink(lib, filepath.Join(base, "linked"))
	for _, root := range []string{lib, filepath.Join(base, "linked")} {
		for name, want := range map[string]bool{"ok.star": false, "sub/real.star": false, "up": true, "dir/secret": true, "dangling": false, "missing": false} {
			if _, out := Outside(root, filepath.Join(root, name)); out != want {
				t.Errorf("Outside(%s, %s) = %v", root, name, out)
			}
		}
	}
}

// TestHashKeepsTheFirstPins: files are hashed in the order of their whole
// paths, as the first pins were, not directory by directory, which puts
// lib/x.star before lib-a.star and lib.star.
func TestHashKeepsTheFirstPins(t *testing.T) {
	dir := t.TempDir()
	for name, content := range map[string]string{
		"lib.star":   "lib = 'file'\n",
		"lib/x.star": "x = 'in lib/'\n",
		"lib-a.star": "a = 'dash'\n",
		"a/b/c.star": "c = 'deep'\n",
	} {
		path := filepath.Join(dir, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// The hash of this layout by hashDir as of commit 338326e, before
	// links were hashed (its function run on these files, outside the
	// repository).
	const first = "6c485d660e6e18057d517c29049d2da3cbe54b856eb114cbf739f46c990a8b15"
	if sum, err := hashDir(dir); err != nil || sum != first {
		t.Errorf("hashDir = %s, %v; the first pins had %s", sum, err, first)
	}
	if sum, err := hashBeforeLinks(dir); err != nil || sum != first {
		t.Errorf("hashBeforeLinks = %s, %v; the first pins had %s", sum, err, first)
	}
}
