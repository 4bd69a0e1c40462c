package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestResumeRefusesAMovedCall: a call is matched by where it is made as
// well as by what it is: the script's loop moved one line down stops the
// resume, naming both places, and runs no agent. With --force the moved
// loop runs live from its first iteration: the journal's entries of the
// loop it no longer is are dropped, none answered from there.
func TestResumeRefusesAMovedCall(t *testing.T) {
	t.Parallel()
	d := newDurableScript(t)
	d.killIn("Iteration 2/4 starting")
	script := readText(t, filepath.Join(d.w.dir, "main.star"))
	d.w.write("main.star", strings.Replace(script, "first = ", "\nfirst = ", 1))
	before := d.starts()
	o := d.rooda("runs", "resume")
	if o.code != 1 || !strings.Contains(o.stderr, "recorded: iterate(build) at main.star:2") || !strings.Contains(o.stderr, "asked:    iterate(build) at main.star:3") {
		t.Fatalf("resume of a script whose loop moved: exit %d\n%s", o.code, o.stderr)
	}
	if !equalCounts(d.starts(), before) {
		t.Fatalf("the refused resume started agents: %v (before: %v)", d.starts(), before)
	}
	o = d.rooda("runs", "resume", "--force")
	o.expect(t, 0, "going on live from it (--force)", "ended: success success")
	if d.starts()["fa.json_1"] != before["fa.json_1"]+1 {
		t.Errorf("with --force the moved loop's first iteration runs live, not from the journal: %v (before: %v)", d.starts(), before)
	}
}

// TestResumeWithOtherFlags: a YAML run resumed with a flag it was started
// with dropped is refused, naming that flag's setting; -v, which changes
// what the run shows and nothing it does, is accepted.
func TestResumeWithOtherFlags(t *testing.T) {
	t.Parallel()
	d := newDurableYAML(t)
	d.args = append(d.args, "--min-iterations", "2")
	d.killIn("Iteration 2/8 starting")
	runDir, _ := d.recorded()
	id := filepath.Base(runDir)
	o := d.rooda("run", "build", "-n", "8", "--failure-threshold", "3", "--resume", id)
	if o.code != 1 || !strings.Contains(o.stderr, "Min Iterations: 2 recorded, not set now") {
		t.Fatalf("resume without --min-iterations 2: exit %d\n%s", o.code, o.stderr)
	}
	o = d.rooda(append(d.args, "-v", "--resume", id)...)
	if o.code != 0 || strings.Contains(o.stderr, "cannot resume") {
		t.Fatalf("resume with -v: exit %d\n%s", o.code, o.stderr)
	}
}

// TestResumeFlagRules: --resume and --run-name need the run's record, so
// --no-record is refused with them, saying why; a run name that is not a
// plain file name is refused naming the form allowed, before any file is
// made.
func TestResumeFlagRules(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, step{"output": successSignal})
	for _, args := range [][]string{
		{"run", "build", "--ai-cmd", w.aiCmd(), "--resume", "last", "--no-record"},
		{"run", "build", "--ai-cmd", w.aiCmd(), "--run-name", "night", "--no-record"},
	} {
		if o := w.rooda(args...); o.code != 1 || !strings.Contains(o.stderr, "need the run's record: not with --dry-run or --no-record") {
			t.Errorf("%s: exit %d\n%s", strings.Join(args, " "), o.code, o.stderr)
		}
	}
	for _, name := range []string{"a/b", "../x", ".hidden", ""} {
		o := w.rooda("run", "build", "--ai-cmd", w.aiCmd(), "--run-name="+name)
		if name == "" {
			continue // no name: a run like any other
		}
		if o.code != 1 || !strings.Contains(o.stderr, "run name \""+name+"\": use letters, digits, '.', '_' and '-', starting with a letter or digit") {
			t.Errorf("--run-name %s: exit %d\n%s", name, o.code, o.stderr)
		}
	}
	if _, err := os.Stat(filepath.Join(w.dir, "a")); err == nil {
		t.Errorf("--run-name a/b made a directory")
	}
}

// TestResumedIterationsGetNewRecords: a run killed, resumed, killed
// again and resumed again writes each iteration it runs in a record of
// its own, after those it had: none is written over, every prompt the
// journal names matches its record's, and the second resume takes the
// run.
func TestResumedIterationsGetNewRecords(t *testing.T) {
	t.Parallel()
	d := newDurableYAML(t)
	d.killIn("Iteration 3/8 starting")
	runDir, _ := d.recorded()
	meta1 := readText(t, filepath.Join(runDir, "iterations", "0001", "meta.json"))
	cmd := exec.Command(binary(t), "runs", "resume")
	cmd.Dir, cmd.Env = d.w.dir, d.w.env
	s := d.w.start(cmd)
	d.w.waitForLog(s, "Iteration 4/8 starting", "the resume never reached iteration 4")
	s.cmd.Process.Signal(syscall.SIGKILL)
	killedWait(t, s)
	if got := readText(t, filepath.Join(runDir, "iterations", "0001", "meta.json")); got != meta1 {
		t.Fatalf("the resume wrote iterations/0001 over:\n%s\nwas:\n%s", got, meta1)
	}
	if o := d.rooda("runs", "resume"); o.code != 0 || strings.Contains(o.stderr, "cannot resume") {
		t.Fatalf("the second resume: exit %d\n%s", o.code, o.stderr)
	}
	checkPromptHashes(t, runDir)
}
