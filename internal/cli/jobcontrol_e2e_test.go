package cli

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"rooda/internal/ptytest"
)

// These tests run rooda on a real pseudo-terminal, where an agent could
// be stopped by the terminal (SIGTTIN) and where Ctrl+Z stops rooda.

// TestAgentReadingTheTerminalFailsAtOnce: an agent whose tool call reads
// /dev/tty (a git credential prompt, ssh, sudo) has no terminal to read:
// it fails at once with the error in its output and the record, instead
// of being stopped by the terminal until the idle timeout calls it idle.
func TestAgentReadingTheTerminalFailsAtOnce(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, step{"output": "asking\n", "shell": "read answer < /dev/tty"})
	pty := ptytest.Open(t, 24, 120)
	cmd := w.command("build", "-n", "1", "--idle-timeout", "3s")
	cmd.Env = withEnv(cmd.Env, "TERM=xterm")
	if err := pty.Start(cmd); err != nil {
		t.Fatal(err)
	}
	screen := endOf(t, pty, cmd)
	const noTerminal = "cannot open /dev/tty: No such device or address"
	if strings.Contains(screen, "[idle]") || !strings.Contains(screen, "the agent failed (exit code 99) [agent_failed]") || !strings.Contains(screen, noTerminal) {
		t.Errorf("want the agent failed at once, saying it has no terminal; the screen:\n%s", screen)
	}
	outputs, _ := filepath.Glob(filepath.Join(w.dir, ".rooda/runs/*/iterations/0001/output.txt"))
	if len(outputs) != 1 || !strings.Contains(readText(t, outputs[0]), noTerminal) {
		t.Errorf("the record's output (%v) lacks %q", outputs, noTerminal)
	}
}

// TestCtrlZStopsTheAgentWithRooda: in an interactive shell, Ctrl+Z (the
// terminal's ^Z) stops rooda and its agent both; fg continues both, and
// the time stopped, longer than the iteration timeout, does not count
// toward it: the agent, which needs about a second of running, succeeds.
// The status line is cleared as rooda stops and drawn again after fg.
func TestCtrlZStopsTheAgentWithRooda(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("SKIPPED: no bash, whose job control the test drives")
	}
	// Twenty sleeps of 50 ms: a stop costs the agent one at most.
	work := "touch working; i=0; while [ $i -lt 20 ]; do sleep 0.05; i=$((i+1)); done"
	w := newWorkspace(t, step{"output": "working\n", "shell": work, "after": successSignal + "\n"})
	pty := ptytest.Open(t, 24, 120)
	shell := exec.Command("bash", "--norc", "--noprofile", "-i")
	shell.Dir, shell.Env = w.dir, withEnv(w.env, "TERM=xterm", "NO_COLOR=", "HISTFILE=", "PS1=$ ")
	if err := pty.Start(shell); err != nil {
		t.Fatal(err)
	}
	must(t, pty.Type(fmt.Sprintf("%s run --ai-cmd '%s' build -n 1 --iteration-timeout 3s\n", binary(t), w.aiCmd())))

	waitUntil(t, "the agent working", func() bool { _, err := os.Stat(filepath.Join(w.dir, "working")); return err == nil }, pty.Screen)
	agent := w.recordedPids()[0]
	rooda := parentOf(t, agent)
	must(t, pty.Type("\x1a"))
	waitUntil(t, "rooda and its agent stopped", func() bool { return stateOf(rooda) == "T" && stateOf(agent) == "T" },
		func() string {
			return fmt.Sprintf("rooda in state %q, its agent in %q; the screen:\n%q", stateOf(rooda), stateOf(agent), pty.Screen())
		})
	stoppedAt := len(pty.Screen())
	time.Sleep(4 * time.Second) // longer than the iteration timeout
	if r, a := stateOf(rooda), stateOf(agent); r != "T" || a != "T" {
		t.Errorf("after 4 s stopped: rooda in state %q, its agent in %q; want both T", r, a)
	}
	must(t, pty.Type("fg; echo \"exit=$?\"; exit\n"))
	screen := endOf(t, pty, shell)

	if !strings.Contains(screen, "exit=0\n") || !strings.Contains(screen, "Success: the agent signaled SUCCESS in iteration 1/1") || strings.Contains(screen, "timed out") {
		t.Errorf("want the run to succeed after fg, the time stopped not counted; the screen:\n%s", screen)
	}
	stop := strings.Index(screen, "Stopped")
	if stop < 0 {
		t.Fatalf("the shell never said the job stopped; the screen:\n%q", screen)
	}
	if before := screen[strings.LastIndex(screen[:stop], clearLine)+len(clearLine) : stop]; strings.Contains(before, "build 1/1") {
		t.Errorf("the status line was left on the screen as rooda stopped: %q", before)
	}
	if after, _ := splitScreen(screen, stoppedAt); len(after) == 0 {
		t.Errorf("no status line drawn after fg; the screen after the stop:\n%q", screen[stoppedAt:])
	}
}

// waitUntil polls done until it holds, and fails the test if it never
// does, with what state says.
func waitUntil(t *testing.T, what string, done func() bool, state func() string) {
	t.Helper()
	deadline := time.Now().Add(hangGuard)
	for !done() {
		if time.Now().After(deadline) {
			t.Fatalf("never: %s; %s", what, state())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// statFields are the fields of /proc/PID/stat after the command's name:
// the state, then the parent's pid; nil once the process is gone.
func statFields(pid int) []string {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return nil
	}
	s := string(stat)
	return strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
}

// stateOf is the process's state: "T" stopped, "S" sleeping, …
func stateOf(pid int) string {
	if f := statFields(pid); len(f) > 0 {
		return f[0]
	}
	return ""
}

func parentOf(t *testing.T, pid int) int {
	t.Helper()
	f := statFields(pid)
	if len(f) < 2 {
		t.Fatalf("process %d is gone", pid)
	}
	ppid, err := strconv.Atoi(f[1])
	must(t, err)
	return ppid
}
