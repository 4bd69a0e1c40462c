package cli

import (
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// TestQuitAndHangUpStopEveryCommand: SIGQUIT (Ctrl+\) and SIGHUP (the
// terminal or the ssh session gone) stop every command that runs agents
// or commands as Ctrl+C does: the agent's whole group is stopped, the log
// stays JSON to its last line (no stack dump of Go's runtime), the exit
// code is an interrupt's, and the record says the run was interrupted and
// by which signal. Each workspace fails the test if a process it recorded
// survives.
func TestQuitAndHangUpStopEveryCommand(t *testing.T) {
	loopScript := "p = compose('p', act = [fragment(content = 'Act.')])\niterate(p, max_iterations = 2)\n"
	// A script test starts no agent: its run() starts a shell and a child
	// in a group of their own, and records both where the workspace's
	// agents record theirs.
	testScript := "def test_slow():\n    run('sleep 30 & echo $$ $! >> \"$PIDS\"; wait')\n"
	commands := []struct {
		name     string
		args     []string
		files    map[string]string
		recorded bool   // whether the command keeps a record
		event    string // the event that says how it ended
		said     string // what that event says, before the signal's name
	}{
		{"build", []string{"build", "-n", "2", "--ai-cmd", agentArg}, nil, true, "run_finished", "Interrupted by "},
		{"script run", []string{"script", "run", "main.star", "--ai-cmd", agentArg}, map[string]string{"main.star": loopScript}, true, "error", "interrupted by "},
		{"script test", []string{"script", "test"}, map[string]string{"slow_test.star": testScript}, false, "error", "interrupted by "},
	}
	signals := []struct {
		sig  syscall.Signal
		name string
	}{{syscall.SIGQUIT, "SIGQUIT"}, {syscall.SIGHUP, "SIGHUP"}}
	for _, cmd := range commands {
		for _, sig := range signals {
			name := sig.name
			t.Run(cmd.name+"/"+name, func(t *testing.T) {
				t.Parallel()
				w := newWorkspace(t, step{"output": "working\n", "child": "30s", "delay": "30s"})
				o := w.runScenario(jsonScenario{
					args: slices.Concat(cmd.args, []string{"--log-format", "json"}), files: cmd.files,
					env: []string{"PIDS=" + filepath.Join(w.dir, "pids")},
					during: func(w *workspace, s started) {
						w.waitForPids(2) // the agent (or shell) and its child
						s.cmd.Process.Signal(sig.sig)
					},
				})
				if o.code != 130 {
					t.Errorf("exit code %d, want 130\nstderr:\n%s", o.code, o.stderr)
				}
				if strings.Contains(o.stderr, "goroutine ") {
					t.Errorf("a stack dump on stderr:\n%s", o.stderr)
				}
				if !hasEvent(everyLineJSON(t, o.stderr), cmd.event, cmd.said+name) {
					t.Errorf("no %q event saying %q\nstderr:\n%s", cmd.event, cmd.said+name, o.stderr)
				}
				if !cmd.recorded {
					return
				}
				run := onlyRun(t, w)
				if run.Status != "interrupted" || run.InterruptedBy != name || run.ExitCode == nil || *run.ExitCode != 130 {
					t.Errorf("record: status %q, interrupted by %q, exit code recorded: %v: want interrupted by %s, exit 130", run.Status, run.InterruptedBy, run.ExitCode != nil, name)
				}
			})
		}
	}
}

// TestHangUpUnderNohup: a run started with SIGHUP ignored (nohup rooda
// build &, then the terminal closed) goes on after a hang-up to its own
// end; catching the signal would undo the ignoring.
func TestHangUpUnderNohup(t *testing.T) {
	t.Parallel()
	nohup, err := exec.LookPath("nohup")
	if err != nil {
		t.Skip("SKIPPED: no nohup here")
	}
	w := newWorkspace(t, step{"output": "working\n", "delay": "2s", "after": successSignal})
	run := w.command("build", "-n", "1")
	cmd := exec.Command(nohup, run.Args...)
	cmd.Dir, cmd.Env = run.Dir, run.Env
	s := w.start(cmd)
	w.waitForPids(1)
	// nohup has exec'd rooda: its pid is rooda's.
	s.cmd.Process.Signal(syscall.SIGHUP)
	o := w.wait(s)
	o.expect(t, 0, "Success: the agent signaled SUCCESS in iteration 1/1")
	if strings.Contains(o.stderr, "SIGHUP") {
		t.Errorf("the hang-up reached the run:\n%s", o.stderr)
	}
}
