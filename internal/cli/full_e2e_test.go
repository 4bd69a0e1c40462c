package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"rooda/host/process"
	"rooda/internal/golden"
)

// TestWithoutRoodaFull: rooda installed alone, with no rooda-full beside
// it or on PATH, still shows the help of script fmt and script lint,
// refuses to run them saying what to install (the golden), and changes
// nothing; a run asked for traces warns once that none are sent, and
// why, and goes on to its end; the collector receives nothing.
func TestWithoutRoodaFull(t *testing.T) {
	t.Parallel()
	alone := filepath.Join(t.TempDir(), "rooda")
	placeCopy(t, binary(t), alone)
	w := newWorkspace(t, step{"output": successSignal})
	w.env = append(withoutTracing(w.env), "PATH="+pathWithout(t, fullProgram))
	w.write("work.star", badlyFormatted)
	roodaAlone := func(args ...string) outcome {
		cmd := exec.Command(alone, args...)
		cmd.Dir, cmd.Env = w.dir, w.env
		return w.wait(w.start(cmd))
	}
	var said strings.Builder
	for _, command := range []string{"fmt", "lint"} {
		if o := roodaAlone("script", command, "--help"); o.code != 0 || !strings.HasPrefix(o.stdout, "NAME:\n   rooda script "+command) {
			t.Errorf("script %s --help: exit %d, stdout %q, stderr %q", command, o.code, o.stdout, o.stderr)
		}
		o := roodaAlone("script", command, "work.star")
		if o.code != 1 || o.stdout != "" {
			t.Errorf("script %s without rooda-full: exit %d, stdout %q", command, o.code, o.stdout)
		}
		said.WriteString(strings.ReplaceAll(o.stderr, filepath.Dir(alone), "$DIR"))
	}
	golden.Check(t, "without_rooda_full", said.String())
	if got := readText(t, filepath.Join(w.dir, "work.star")); got != badlyFormatted {
		t.Errorf("script fmt without rooda-full changed the script:\n%s", got)
	}

	c := newOTLPCollector(t)
	w.traced(c.URL)
	cmd := w.command("build", "-n", "1")
	cmd.Path, cmd.Args[0] = alone, alone
	o := w.wait(w.start(cmd))
	o.expect(t, 0, "Success: the agent signaled SUCCESS")
	warning := "WARN: Traces: none sent: they are sent by rooda-full: no rooda-full beside rooda (" + filepath.Join(filepath.Dir(alone), fullProgram) + ") or on PATH; install it with rooda (go install ./cmd/... installs it)\n"
	if n := strings.Count(o.stderr, "Traces"); n != 1 || !strings.Contains(o.stderr, warning) {
		t.Errorf("want one warning %q, got %d:\n%s", warning, n, o.stderr)
	}
	if _, requests := c.received(); requests != 0 {
		t.Errorf("the collector received %d exports", requests)
	}
	// A shell's completion, at each TAB, says nothing of traces.
	cmd = exec.Command(alone, "runs", "--generate-bash-completion")
	cmd.Dir, cmd.Env = w.dir, w.env
	if o := w.wait(w.start(cmd)); o.code != 0 || strings.Contains(o.stderr, "Traces") || !strings.Contains(o.stdout, "list") {
		t.Errorf("a completion request with traces asked: exit %d, stdout %q, stderr %q", o.code, o.stdout, o.stderr)
	}
}

// pathWithout is the test's PATH less the directories that hold a
// program named name.
func pathWithout(t *testing.T, name string) string {
	t.Helper()
	dirs := filepath.SplitList(os.Getenv("PATH"))
	dirs = slices.DeleteFunc(dirs, func(dir string) bool {
		_, err := os.Stat(filepath.Join(dir, name))
		return err == nil
	})
	return strings.Join(dirs, string(filepath.ListSeparator))
}

// TestHandOverKeepsTheProcess: rooda hands a traced command over to
// rooda-full in its own process: the agent of a traced run is tagged
// with the pid the test started, whose trace rooda-full sent; and a
// traced script repl reads the statements piped into the rooda the test
// started, and writes their values to its stdout.
func TestHandOverKeepsTheProcess(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, step{"output": successSignal})
	c := newOTLPCollector(t)
	w.traced(c.URL)
	s := w.start(w.command("build", "-n", "1"))
	w.wait(s).expect(t, 0, "Success: the agent signaled SUCCESS")
	if spans, _ := c.received(); len(spans) == 0 {
		t.Error("no trace received: rooda did not hand the run over to rooda-full")
	}
	env := readText(t, filepath.Join(w.dir, "env-1.txt"))
	tag := process.TagVariable + "=" + strconv.Itoa(s.cmd.Process.Pid) + "."
	if !strings.Contains(env, tag) {
		t.Errorf("the agent's tag does not name the process the test started (%s…):\n%s", tag, env)
	}

	repl := exec.Command(binary(t), "script", "repl")
	repl.Dir, repl.Env = w.dir, w.env
	repl.Stdin = strings.NewReader("x = 20 + 1\nx * 2\n")
	if o := w.wait(w.start(repl)); o.code != 0 || o.stdout != "42\n" {
		t.Errorf("traced script repl: exit %d, stdout %q, stderr %q", o.code, o.stdout, o.stderr)
	}
}
