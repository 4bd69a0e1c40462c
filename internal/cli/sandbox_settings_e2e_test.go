package cli

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"rooda/host/sandbox"
	"rooda/internal/golden"
)

// needsLandlock skips a test on a kernel whose Landlock is older than
// abi, saying SKIPPED: with the kernel's ABI.
func needsLandlock(t *testing.T, abi int, what string) {
	t.Helper()
	if sandbox.ABI() < abi {
		t.Skipf("SKIPPED: this kernel (%s) offers Landlock ABI %d; %s needs %d", sandbox.Kernel(), sandbox.ABI(), what, abi)
	}
}

// needsHiding skips a test where no mount namespace can be had, saying
// SKIPPED: and why.
func needsHiding(t *testing.T) {
	t.Helper()
	needsLandlock(t, sandbox.SignalsABI, "the sandbox's test")
	cmd := exec.Command(binary(t), "run", "build", "--ai-cmd", "true", "--sandbox", "workspace", "--dry-run")
	cmd.Dir = t.TempDir()
	if out, _ := cmd.CombinedOutput(); strings.Contains(string(out), "not hidden,") {
		t.Skipf("SKIPPED: this system gives rooda no mount namespace:\n%s", out)
	}
}

// sandboxed is a workspace whose HOME and TMPDIR are its own, so that
// what rooda makes there, and what a sweep removes, are this test's.
func sandboxed(t *testing.T, steps ...step) (w *workspace, home, tmp string) {
	w = newWorkspace(t, steps...)
	home, tmp = t.TempDir(), t.TempDir()
	w.env = append(w.env, "HOME="+home, "TMPDIR="+tmp, "XDG_CONFIG_HOME=", "XDG_CACHE_HOME=")
	return w, home, tmp
}

// sandboxLines are the lines of a dry run about the sandbox: its check,
// what it lists, and the refusals, with the test's directories named.
func sandboxLines(out string, names ...string) string {
	var kept []string
	in := false
	for _, l := range strings.Split(out, "\n") {
		switch {
		case strings.Contains(l, "Sandbox:") || strings.Contains(l, "sandbox_write:"):
			in = true
		case !strings.HasPrefix(l, "    "):
			in = false
		}
		if in {
			kept = append(kept, l)
		}
	}
	text := strings.Join(kept, "\n") + "\n"
	for i := 0; i+1 < len(names); i += 2 {
		text = strings.ReplaceAll(text, names[i], names[i+1])
	}
	return regexp.MustCompile(`Landlock ABI \d+`).ReplaceAllString(text, "Landlock ABI N")
}

// TestSandboxSettingsSayWhatTheyDo: the sandbox's settings under
// sandbox: off are said, at start and in the dry run, to do nothing; a
// sandbox_write path that voids the sandbox (/, the home directory or a
// directory above it, the configuration directory, rooda's records) is
// refused, by a run before any agent as by a dry run, unless forced with
// '!'; one that does not exist, or names a variable not set, is warned
// about, as is a sandbox_hide path that does not exist. The texts are
// testdata/sandbox_settings.golden's.
func TestSandboxSettingsSayWhatTheyDo(t *testing.T) {
	t.Parallel()
	needsHiding(t)
	w, home, _ := sandboxed(t, step{"output": successSignal})
	w.env = append(w.env, "ABOVE_HOME="+filepath.Dir(home))
	names := []string{w.dir, "$WORKSPACE", home, "$HOME", filepath.Dir(home), "$ABOVE_HOME"}
	var all strings.Builder
	for _, c := range []struct {
		name string
		code int
		args []string
	}{
		{"off", 0, []string{"--sandbox-write", "~/x", "--sandbox-net", "443", "--sandbox-hide", "~/.ssh", "--sandbox-hosts", "example.com"}},
		{"refused", 1, []string{"--sandbox", "workspace", "--sandbox-write", "/:~:$ABOVE_HOME:~/.config/:.rooda/runs/x:~/later:${ROODA_TEST_UNSET}/x:build", "--sandbox-hide", "~/secret"}},
		{"forced", 0, []string{"--sandbox", "workspace", "--sandbox-write", "!~"}},
	} {
		o := w.run(append([]string{"build", "-n", "1", "--dry-run"}, c.args...)...)
		if o.code != c.code {
			t.Errorf("%s: exit %d, want %d\n%s%s", c.name, o.code, c.code, o.stdout, o.stderr)
		}
		fmt.Fprintf(&all, "== %s: %s\n%s", c.name, strings.Join(c.args, " "), sandboxLines(o.stdout+o.stderr, names...))
	}
	golden.Check(t, "sandbox_settings", all.String())
	// A run says the same: off's warnings at start, the refusal before
	// any agent.
	w.run("build", "-n", "1", "--sandbox-net", "443").expect(t, 0,
		"WARN: Sandbox: sandbox_net (cli: --sandbox-net) has no effect under sandbox: off", "Success: the agent signaled SUCCESS")
	o := w.run("build", "-n", "1", "--sandbox", "best-effort", "--sandbox-write", "~")
	o.expect(t, 1, `sandbox_write: ~ (cli: --sandbox-write) is refused: it holds your home directory `+home)
	if w.ran(2) {
		t.Error("an agent ran though sandbox_write was refused")
	}
}

// TestSandboxDryRunListsFirstIteration: on a fresh HOME, the dry run
// lists what the first iteration applies: the state directories of the
// agent's alias, which rooda makes only as the iteration starts, and
// rooda's records as hidden, which the run makes before it.
func TestSandboxDryRunListsFirstIteration(t *testing.T) {
	t.Parallel()
	needsHiding(t)
	w, home, _ := sandboxed(t, step{"output": successSignal})
	w.write("rooda-config.yml", "ai_cmd_aliases:\n  fake: {cmd: \""+w.aiCmd()+"\", sandbox_write: [\"~/.fakestate\", \"~/.fakecache/x\"]}\n")
	cmd := exec.Command(binary(t), "run", "build", "-n", "1", "--ai-cmd-alias", "fake", "--sandbox", "workspace", "--dry-run")
	cmd.Dir, cmd.Env = w.dir, w.env
	out, err := cmd.CombinedOutput()
	must(t, err)
	listed := func(label string) []string {
		m := regexp.MustCompile(`(?m)^    ` + label + `: (.*)$`).FindStringSubmatch(string(out))
		if m == nil {
			t.Fatalf("the dry run lists no %s:\n%s", label, out)
		}
		return slices.DeleteFunc(strings.Split(m[1], ", "), func(s string) bool { return s == "its own TMPDIR" })
	}
	writes, hidden := listed("writes"), listed("hidden")
	if !slices.Contains(writes, filepath.Join(home, ".fakestate")) {
		t.Errorf("the dry run's writes lack the state directory to be made: %q", writes)
	}
	o := w.run("build", "-n", "1", "--ai-cmd-alias", "fake", "--sandbox", "workspace")
	o.expect(t, 0, "Success: the agent signaled SUCCESS")
	meta := w.sandboxMeta(1)
	applied := slices.DeleteFunc(slices.Clone(meta.Write), func(s string) bool { return strings.Contains(s, "/rooda-agent-") })
	if !slices.Equal(writes, applied) || !slices.Equal(hidden, meta.Hide) {
		t.Errorf("the dry run lists\n  writes %q\n  hidden %q\nthe first iteration applied\n  writes %q\n  hidden %q", writes, hidden, applied, meta.Hide)
	}
}

// sandboxMeta is what iteration n's meta.json says the sandbox applied.
func (w *workspace) sandboxMeta(n int) sandbox.Spec {
	w.t.Helper()
	var meta struct{ Sandbox sandbox.Spec }
	must(w.t, json.Unmarshal([]byte(readText(w.t, filepath.Join(w.runDir(), "iterations", fmt.Sprintf("%04d", n), "meta.json"))), &meta))
	return meta.Sandbox
}

// TestSandboxHidesAndScopesSockets: a hostile agent under sandbox:
// workspace cannot read a file sandbox_hide names, nor list a directory
// it names, nor connect to a pathname unix socket it names (Landlock has
// no right for that), nor to an abstract unix socket made outside its
// tree (scoped from Landlock ABI 6). meta.json and the dry run list
// what is hidden. Under off, the abstract socket connects: off scopes
// signals alone.
func TestSandboxHidesAndScopesSockets(t *testing.T) {
	t.Parallel()
	needsHiding(t)
	if exec.Command("perl", "-MIO::Socket::UNIX", "-e", "1").Run() != nil {
		t.Skip("SKIPPED: no perl with IO::Socket::UNIX, the agent's socket client")
	}
	outside := t.TempDir()
	secret, dir, sock := filepath.Join(outside, "secret"), filepath.Join(outside, "dir"), filepath.Join(outside, "bus")
	must(t, os.WriteFile(secret, []byte("the-secret"), 0o644))
	must(t, os.MkdirAll(filepath.Join(dir, "inner"), 0o755))
	abstract := fmt.Sprintf("rooda-e2e-%d", os.Getpid())
	for _, addr := range []string{sock, "@" + abstract} {
		ln, err := net.Listen("unix", addr)
		must(t, err)
		defer ln.Close()
		go func() {
			for c, err := ln.Accept(); err == nil; c, err = ln.Accept() {
				c.Close()
			}
		}()
	}
	connect := func(name, addr string) string {
		return `perl -MIO::Socket::UNIX -e 'print IO::Socket::UNIX->new(Peer => "` + addr + `") ? "` + name + `-connected\n" : "` + name + `-refused\n"'; `
	}
	line := `cat ` + secret + ` 2>/dev/null; echo; ls ` + dir + `; [ -e ` + dir + `/inner ] || echo dir-hidden; ` +
		connect("path", sock) + connect("abstract", `\0`+abstract)
	w, _, _ := sandboxed(t, step{"shell": line, "output": successSignal})
	hide := secret + ":" + dir + ":" + sock
	o := w.run("build", "-n", "1", "--sandbox", "workspace", "--sandbox-hide", hide)
	o.expect(t, 0, "Success: the agent signaled SUCCESS")
	kept := readText(t, filepath.Join(w.runDir(), "iterations", "0001", "output.txt"))
	for _, want := range []string{"dir-hidden", "path-refused", "abstract-refused"} {
		if !strings.Contains(kept, want) {
			t.Errorf("the agent's output lacks %s:\n%s", want, kept)
		}
	}
	if strings.Contains(kept, "the-secret") {
		t.Errorf("the agent read the hidden file:\n%s", kept)
	}
	if got := w.sandboxMeta(1).Hide; !slices.Contains(got, secret) || !slices.Contains(got, dir) || !slices.Contains(got, sock) {
		t.Errorf("meta.json's hide: %q", got)
	}
	dry := w.run("build", "-n", "1", "--sandbox", "workspace", "--sandbox-hide", hide, "--dry-run")
	if !strings.Contains(dry.stdout, "hidden: "+filepath.Join(w.dir, ".rooda", "runs")+", ") || !strings.Contains(dry.stdout, ", "+strings.ReplaceAll(hide, ":", ", ")+"\n") {
		t.Errorf("the dry run does not list what is hidden:\n%s", dry.stdout)
	}
	// Off: the abstract socket connects, the agent's signals are scoped.
	w.countStarts([]step{{"shell": connect("abstract", `\0`+abstract), "output": successSignal}})
	w.run("build", "-n", "1").expect(t, 0, "Success: the agent signaled SUCCESS")
	if out := globText(t, filepath.Join(w.dir, ".rooda", "runs", "*", "iterations", "0001", "output.txt")); !slices.ContainsFunc(out, func(s string) bool { return strings.Contains(s, "abstract-connected") }) {
		t.Errorf("under off, the abstract socket did not connect: %q", out)
	}
}

// TestSandboxCorners: under sandbox: workspace a file named in
// sandbox_write can be truncated (': >', the shell's '>') as well as
// written; zsh's here-documents work (zsh takes their files from
// TMPPREFIX, not TMPDIR); with runs_dir the workspace itself, which
// cannot be hidden, the agent still sees and writes its workspace; and
// the iteration's TMPDIR is gone once it ends.
func TestSandboxCorners(t *testing.T) {
	t.Parallel()
	needsHiding(t)
	if _, err := exec.LookPath("zsh"); err != nil {
		t.Skip("SKIPPED: zsh is not installed (bash internal/testdeps/install.sh installs it)")
	}
	named := filepath.Join(t.TempDir(), "named.txt")
	must(t, os.WriteFile(named, []byte("before\n"), 0o644))
	line := `: > ` + named + ` && echo colon-truncated; echo after > ` + named + ` && echo rewritten; ` +
		`zsh -c 'cat <<EOF
here-$((1+1))
EOF'; echo in > in.txt && cat script.json > /dev/null && echo workspace-ok; echo "tmpdir=$TMPDIR"`
	w, _, tmp := sandboxed(t, step{"shell": line, "output": successSignal})
	w.env = append(w.env, "ROODA_LOOP_RUNS_DIR=.")
	o := w.run("build", "-n", "1", "--sandbox", "workspace", "--sandbox-write", named)
	o.expect(t, 0, "Success: the agent signaled SUCCESS")
	found, _ := filepath.Glob(filepath.Join(w.dir, "*", "iterations", "0001", "output.txt"))
	if len(found) != 1 {
		t.Fatalf("records in the workspace: %q\n%s", found, o.stderr)
	}
	kept := readText(t, found[0])
	for _, want := range []string{"colon-truncated", "rewritten", "here-2", "workspace-ok", "tmpdir=" + tmp + "/rooda-agent-"} {
		if !strings.Contains(kept, want) {
			t.Errorf("the agent's output lacks %s:\n%s", want, kept)
		}
	}
	if data := readText(t, named); data != "after\n" {
		t.Errorf("the named file holds %q", data)
	}
	if left, _ := filepath.Glob(filepath.Join(tmp, "*")); len(left) > 0 {
		t.Errorf("left in TMPDIR after the iteration: %q", left)
	}
}

// TestSandboxTmpdirOfAKilledRooda: what the agent's TMPDIR held when
// rooda was killed (SIGKILL) is removed by the resume, while the TMPDIR
// of another rooda, alive, is kept; and that one's is removed when its
// iteration ends, by an interrupt.
func TestSandboxTmpdirOfAKilledRooda(t *testing.T) {
	t.Parallel()
	needsLandlock(t, 1, "the sandbox's TMPDIR")
	slow := step{"shell": `echo "$TMPDIR" > tmpdir.txt`, "delay": "60s", "again": step{"output": successSignal}}
	killed, _, tmp := sandboxed(t, slow)
	alive := newWorkspace(t, slow)
	alive.env = append(alive.env, "TMPDIR="+tmp)
	other := alive.start(alive.command("build", "-n", "1", "--sandbox", "best-effort"))
	first := killed.start(killed.command("build", "-n", "2", "--sandbox", "best-effort"))
	stale, live := waitForText(t, killed.dir, "tmpdir.txt"), waitForText(t, alive.dir, "tmpdir.txt")
	first.cmd.Process.Signal(syscall.SIGKILL)
	first.cmd.Wait()
	if !isDirectory(stale) {
		t.Fatalf("the killed rooda's agent's TMPDIR %s is gone before any sweep: the test proves nothing", stale)
	}
	cmd := exec.Command(binary(t), "runs", "resume")
	cmd.Dir, cmd.Env = killed.dir, killed.env
	killed.wait(killed.start(cmd)).expect(t, 0, "Success: the agent signaled SUCCESS")
	if isDirectory(stale) || !isDirectory(live) {
		t.Errorf("after the resume: the killed rooda's TMPDIR there %v, the live one's there %v", isDirectory(stale), isDirectory(live))
	}
	other.cmd.Process.Signal(syscall.SIGTERM)
	alive.wait(other)
	if isDirectory(live) {
		t.Errorf("the interrupted iteration's TMPDIR %s is left", live)
	}
}

// TestSandboxTmpdirClearedForTheNextAgent: a loop's agents take turns in
// one directory of their own, cleared between them: what one left in its
// TMPDIR, files and directories, the next does not find, and the
// directory goes with the run.
func TestSandboxTmpdirClearedForTheNextAgent(t *testing.T) {
	t.Parallel()
	needsLandlock(t, 1, "the sandbox's TMPDIR")
	leave := step{"shell": `echo "$TMPDIR" > tmpdir-$ROODA_ITERATION.txt; ls -A "$TMPDIR" > seen-$ROODA_ITERATION.txt; ` +
		`echo x > "$TMPDIR/left" && mkdir -p "$TMPDIR/d/e" && echo y > "$TMPDIR/d/e/f"`, "output": "done\n"}
	w, _, tmp := sandboxed(t, leave, leave, leave)
	w.run("build", "-n", "3", "--sandbox", "workspace").expect(t, 2, "Reached max iterations: 3")
	first := readText(t, filepath.Join(w.dir, "tmpdir-1.txt"))
	for n := 2; n <= 3; n++ {
		if seen := readText(t, filepath.Join(w.dir, fmt.Sprintf("seen-%d.txt", n))); seen != "" {
			t.Errorf("agent %d found in its TMPDIR what the one before left: %q", n, seen)
		}
		if dir := readText(t, filepath.Join(w.dir, fmt.Sprintf("tmpdir-%d.txt", n))); dir != first {
			t.Errorf("agent %d had the TMPDIR %s, not its loop's %s: one was made for it", n, dir, first)
		}
	}
	if left, _ := filepath.Glob(filepath.Join(tmp, "*")); len(left) > 0 {
		t.Errorf("left in TMPDIR after the run: %q", left)
	}
}

// waitForText waits for the file name in dir, written whole, and returns
// what it says.
func waitForText(t *testing.T, dir, name string) string {
	t.Helper()
	for range 600 {
		if data, err := os.ReadFile(filepath.Join(dir, name)); err == nil && strings.HasSuffix(string(data), "\n") {
			return strings.TrimSpace(string(data))
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("%s never written in %s", name, dir)
	return ""
}

func isDirectory(path string) bool {
	info, err := os.Stat(path)
	return err == nil && info.IsDir()
}
