package cli

import (
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// gitServer serves the repositories beside repo over http, with git's
// own http-backend, to the user alice with the password it holds now; it
// returns the server's address (host:port).
func gitServer(t *testing.T, repo string, password *atomic.Value) string {
	t.Helper()
	execPath, err := exec.Command("git", "--exec-path").Output()
	if err != nil {
		t.Skip("git has no exec path")
	}
	backend := &cgi.Handler{
		Path: filepath.Join(strings.TrimSpace(string(execPath)), "git-http-backend"),
		Env:  []string{"GIT_PROJECT_ROOT=" + filepath.Dir(repo), "GIT_HTTP_EXPORT_ALL=1"},
	}
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		user, pass, ok := r.BasicAuth()
		if !ok || user != "alice" || pass != password.Load() {
			rw.Header().Set("WWW-Authenticate", `Basic realm="team"`)
			http.Error(rw, "who are you?", http.StatusUnauthorized)
			return
		}
		backend.ServeHTTP(rw, r)
	}))
	t.Cleanup(srv.Close)
	return strings.TrimPrefix(srv.URL, "http://")
}

// noSecret fails the test if what rooda printed holds the password.
func noSecret(t *testing.T, what, secret string, o outcome) {
	t.Helper()
	if strings.Contains(o.stdout+o.stderr, secret) {
		t.Errorf("%s printed the password:\n%s%s", what, o.stdout, o.stderr)
	}
}

// TestLibraryURLSecretIsHidden: a library fetched over http with a
// password in its URL is fetched with it, but the password is in none of
// what rooda prints (lib list, config show, errors quoting git), nor in
// rooda.lock, nor anywhere in the cache; the URL shows alice:***. A new
// password is the same library: its pin holds, and fetching uses it.
func TestLibraryURLSecretIsHidden(t *testing.T) {
	t.Parallel()
	repo, publish := gitRepo(t)
	commit := publish("hello", "v1")
	var password atomic.Value
	password.Store("s3cret")
	host := gitServer(t, repo, &password)
	w := newLibWorkspace(t, repo, t.TempDir())
	config := func(pass, more string) {
		w.write("rooda-config.yml", "libraries:\n  team: {git: http://alice:"+pass+"@"+host+"/team, ref: v1, path: star}\n"+more)
	}
	config("s3cret", "")
	shown := "http://alice:***@" + host + "/team"

	o := w.rooda("lib", "fetch")
	if o.code != 0 || o.stdout != "team: pinned v1 at "+commit[:12]+"\n" {
		t.Fatalf("lib fetch: exit %d\n%s%s", o.code, o.stdout, o.stderr)
	}
	lock, _ := os.ReadFile(filepath.Join(w.dir, "rooda.lock"))
	if strings.Contains(string(lock), "s3cret") || !strings.Contains(string(lock), `"git": "`+shown+`"`) {
		t.Errorf("rooda.lock:\n%s", lock)
	}
	filepath.Walk(w.cache, func(path string, info os.FileInfo, err error) error {
		if err == nil && info.Mode().IsRegular() {
			if data, _ := os.ReadFile(path); strings.Contains(string(data), "s3cret") {
				t.Errorf("the cache keeps the password in %s", path)
			}
		}
		return nil
	})
	o = w.rooda("lib", "list")
	if o.code != 0 || !strings.Contains(o.stdout, "team\t"+shown+" v1 star\tpinned "+commit[:12]+", cached") {
		t.Errorf("lib list: exit %d\n%s%s", o.code, o.stdout, o.stderr)
	}
	noSecret(t, "lib list", "s3cret", o)
	o = w.rooda("config", "show")
	if o.code != 0 || !strings.Contains(o.stdout, shown) {
		t.Errorf("config show: exit %d\n%s%s", o.code, o.stdout, o.stderr)
	}
	noSecret(t, "config show", "s3cret", o)

	// A new password: the pin holds, and a fetch goes through with it.
	password.Store("n3w")
	config("n3w", "")
	if o := w.rooda("lib", "fetch"); o.code != 0 || o.stdout != "team: v1 at "+commit[:12]+", as pinned\n" {
		t.Errorf("lib fetch with the new password: exit %d\n%s%s", o.code, o.stdout, o.stderr)
	}
	if o := w.rooda("script", "run", "main.star"); o.code != 0 || o.stderr != "hello\n" {
		t.Errorf("a run with the new password: exit %d\n%s", o.code, o.stderr)
	}

	// Errors that quote the URL, rooda's and git's.
	config("n3w", "  gone: {git: http://alice:n3w@"+host+"/missing, ref: v1}\n")
	o = w.rooda("lib", "fetch")
	if o.code != 1 || !strings.Contains(o.stderr, "library gone: ") || !strings.Contains(o.stderr, "http://alice:***@"+host+"/missing") {
		t.Errorf("a missing repository: exit %d\n%s", o.code, o.stderr)
	}
	noSecret(t, "a missing repository's error", "n3w", o)
	w.write("rooda-config.yml", "libraries:\n  team: {git: http://alice:n3w@"+host+"/team, ref: v2, path: star}\n")
	o = w.rooda("script", "run", "main.star")
	if o.code != 1 || !strings.Contains(o.stderr, "rooda.lock pins "+shown+" v1") || !strings.Contains(o.stderr, "now says "+shown+" v2") {
		t.Errorf("a moved ref: exit %d\n%s", o.code, o.stderr)
	}
	noSecret(t, "a moved ref's error", "n3w", o)
}

// TestInfoFetchesNothing: rooda info of a script procedure whose library
// is not fetched yet clones nothing and writes no rooda.lock; it says
// the library is not fetched and how to fetch it. Once fetched, info
// describes the script from the cache.
func TestInfoFetchesNothing(t *testing.T) {
	t.Parallel()
	repo, publish := gitRepo(t)
	commit := publish("hello", "v1")
	w := newLibWorkspace(t, repo, t.TempDir())
	w.write("rooda-config.yml", "libraries:\n  team: {git: file://"+repo+", ref: v1, path: star}\nprocedures:\n  nightly:\n    script: main.star\n")
	w.write("main.star", "load('@team//greet.star', 'greeting')\niterate(compose(greeting, act = [fragment(content = 'Greet.')]), max_iterations = 2)\n")

	o := w.rooda("info", "nightly")
	if o.code != 1 || !strings.Contains(o.stderr, "@team//greet.star: library team (file://"+repo+") is not fetched yet, and rooda info fetches nothing: run rooda lib fetch") {
		t.Errorf("info before a fetch: exit %d\n%s%s", o.code, o.stdout, o.stderr)
	}
	if _, err := os.Stat(filepath.Join(w.dir, "rooda.lock")); err == nil {
		t.Error("info wrote rooda.lock")
	}
	if entries, _ := os.ReadDir(filepath.Join(w.cache, "rooda", "git")); len(entries) > 0 {
		t.Errorf("info fetched the library into the cache: %v", entries)
	}

	if o := w.rooda("lib", "fetch"); o.code != 0 {
		t.Fatalf("lib fetch: exit %d\n%s", o.code, o.stderr)
	}
	o = w.rooda("info", "nightly")
	if o.code != 0 || !strings.Contains(o.stdout, "Loops (as its dry run sees them") || !strings.Contains(o.stdout, "procedure hello") {
		t.Errorf("info after the fetch: exit %d\n%s%s", o.code, o.stdout, o.stderr)
	}
	// A pin the cache lacks is not fetched either.
	os.RemoveAll(filepath.Join(w.cache, "rooda"))
	o = w.rooda("info", "nightly")
	if o.code != 1 || !strings.Contains(o.stderr, "library team is pinned at commit "+commit[:12]+", which is not in the cache yet") {
		t.Errorf("info with an empty cache: exit %d\n%s%s", o.code, o.stdout, o.stderr)
	}
	if entries, _ := os.ReadDir(filepath.Join(w.cache, "rooda", "git")); len(entries) > 0 {
		t.Errorf("info fetched the pinned commit into the cache: %v", entries)
	}
}

// slowGit puts a git on the workspace's PATH whose clone waits until the
// file it returns exists: a fetch that takes as long as the test wants.
// Each clone's pid (its process group) is appended to clones.
func slowGit(t *testing.T, w *libWorkspace) (release, clones string) {
	t.Helper()
	real, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is not installed")
	}
	bin := filepath.Join(w.dir, "bin")
	os.Mkdir(bin, 0o755)
	release, clones = filepath.Join(w.dir, "release"), filepath.Join(w.dir, "clones")
	script := "#!/bin/sh\ncase \"$*\" in *clone*)\n  echo $$ >> " + clones + "\n  while [ ! -e " + release + " ]; do sleep 0.05; done;;\nesac\nexec " + real + " \"$@\"\n"
	if err := os.WriteFile(filepath.Join(bin, "git"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	w.env = append(w.env, "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Cleanup(func() { os.WriteFile(release, nil, 0o644) })
	return release, clones
}

// pids are the process ids listed in file, one a line.
func pids(file string) []int {
	data, _ := os.ReadFile(file)
	var out []int
	for _, field := range strings.Fields(string(data)) {
		if pid, err := strconv.Atoi(field); err == nil {
			out = append(out, pid)
		}
	}
	return out
}

// waitFor waits until cond holds, failing the test with why if it never
// does.
func waitFor(t *testing.T, why string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(hangGuard)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal(why)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

var signalNames = map[syscall.Signal]string{syscall.SIGINT: "SIGINT", syscall.SIGTERM: "SIGTERM"}

// leftClones are the clone-* directories in the cache.
func (w *libWorkspace) leftClones() []string {
	left, _ := filepath.Glob(filepath.Join(w.cache, "rooda", "git", "clone-*"))
	return left
}

// TestLibraryFetchEndsOnInterrupt: a fetch waiting for the cache's lock
// says whose lock it waits for, and SIGINT or SIGTERM ends the wait with
// exit 130; SIGINT or SIGTERM ends a fetch in git's clone with exit 130,
// git stopped and no clone left in the cache; a fetch killed outright
// leaves its clone, which the next fetch removes.
func TestLibraryFetchEndsOnInterrupt(t *testing.T) {
	t.Parallel()
	repo, publish := gitRepo(t)
	commit := publish("hello", "v1")
	cache := t.TempDir()
	w := newLibWorkspace(t, repo, cache)
	release, clones := slowGit(t, w)
	start := func(args ...string) started {
		cmd := exec.Command(binary(t), args...)
		cmd.Dir, cmd.Env = w.dir, w.env
		return w.start(cmd)
	}
	for round, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		holder := start("lib", "fetch")
		waitFor(t, "the first fetch never cloned", func() bool { return len(pids(clones)) > round })
		cloning := pids(clones)[round]

		// script check catches signals only where a library waits.
		for _, command := range []string{"run", "check"} {
			waiter := start("script", command, "main.star")
			w.waitForLog(waiter, "waiting for the library cache's lock ("+filepath.Join(cache, "rooda", ".lock")+"), held by pid "+strconv.Itoa(holder.cmd.Process.Pid)+" (rooda lib fetch, since ", "script "+command+" never said it waits for the lock")
			waiter.cmd.Process.Signal(sig)
			w.wait(waiter).expect(t, 130, "interrupted by "+signalNames[sig])
		}

		holder.cmd.Process.Signal(sig)
		o := w.wait(holder)
		o.expect(t, 130, "interrupted by "+signalNames[sig])
		if alive(cloning) {
			syscall.Kill(-cloning, syscall.SIGKILL)
			t.Errorf("%s: git's clone survived the fetch", signalNames[sig])
		}
		if left := w.leftClones(); len(left) > 0 {
			t.Errorf("%s: an interrupted fetch left %v", signalNames[sig], left)
		}
	}

	killed := start("lib", "fetch")
	waitFor(t, "the fetch to kill never cloned", func() bool { return len(pids(clones)) > 2 })
	killed.cmd.Process.Kill()
	w.wait(killed)
	syscall.Kill(-pids(clones)[2], syscall.SIGKILL) // its git dies with it
	if left := w.leftClones(); len(left) != 1 {
		t.Fatalf("the killed fetch left %v, not its clone", left)
	}
	os.WriteFile(release, nil, 0o644)
	if o := w.rooda("lib", "fetch"); o.code != 0 || o.stdout != "team: pinned v1 at "+commit[:12]+"\n" {
		t.Errorf("the fetch after a killed one: exit %d\n%s%s", o.code, o.stdout, o.stderr)
	}
	if left := w.leftClones(); len(left) > 0 {
		t.Errorf("the next fetch left the killed one's clone: %v", left)
	}
}
