package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"rooda/host/process"
	"rooda/host/runlog"
	"rooda/host/sandbox"
)

// These tests run agents that leave processes outside their process group
// — "setsid sleep 300 &", a daemon's double fork — and check that rooda
// stops them, says so truthfully, records them, reaps those that exit on
// their own, and that no agent outlives a rooda killed outright. Every
// test's workspace fails it if a recorded process survives.

// recordedPids are the pids the fake agents recorded, in order: each
// agent's, then the children it started.
func (w *workspace) recordedPids() []int {
	w.t.Helper()
	var pids []int
	for _, field := range strings.Fields(readText(w.t, filepath.Join(w.dir, "pids"))) {
		pid, err := strconv.Atoi(field)
		if err != nil {
			w.t.Fatalf("the fake agents' pids file: %v", err)
		}
		pids = append(pids, pid)
	}
	return pids
}

// meta reads meta.json of the only run's iteration n.
func (w *workspace) meta(n int) runlog.Meta {
	w.t.Helper()
	runs, _ := filepath.Glob(filepath.Join(w.dir, ".rooda/runs/*/iterations", "000"+strconv.Itoa(n), "meta.json"))
	if len(runs) != 1 {
		w.t.Fatalf("want one meta.json of iteration %d, found %v", n, runs)
	}
	data, err := os.ReadFile(runs[0])
	if err != nil {
		w.t.Fatal(err)
	}
	var m runlog.Meta
	if err := json.Unmarshal(data, &m); err != nil {
		w.t.Fatal(err)
	}
	return m
}

func TestEscapedProcessesStopped(t *testing.T) {
	w := newWorkspace(t, step{"output": "working\n", "escape": "60s", "daemon": "60s"})
	o := w.run("build", "-n", "1")
	o.expect(t, 2, "WARN: Iteration 1/1: the agent left 2 processes running outside its process group (", "); stopped them")
	pids := w.recordedPids()
	if len(pids) != 3 {
		t.Fatalf("want the agent, its escaped child and its daemon recorded, got %v", pids)
	}
	m := w.meta(1)
	recorded := strings.Join(m.Escaped, ", ")
	if len(m.Escaped) != 2 || !strings.Contains(recorded, strconv.Itoa(pids[1])+" fakeagent") || !strings.Contains(recorded, strconv.Itoa(pids[2])+" fakeagent") {
		t.Errorf("meta.json escaped = %q, want the pids %v", m.Escaped, pids[1:])
	}
	show := w.rooda("runs", "show", "last", "--iteration", "1")
	if !strings.Contains(show.stdout, "Left outside its group (stopped): "+recorded) {
		t.Errorf("runs show does not name the escaped processes:\n%s%s", show.stdout, show.stderr)
	}
}

// TestTimeoutStopsEscapedProcesses: the timeout's warning says what was
// stopped, and it is true: escaped processes included.
func TestTimeoutStopsEscapedProcesses(t *testing.T) {
	w := newWorkspace(t, step{"escape": "60s", "delay": "60s"})
	o := w.run("build", "-n", "1", "--iteration-timeout", "1")
	o.expect(t, 1, "WARN: Iteration 1/1: the agent left 1 process running outside its process group (", "); stopped it\n")
	o.expectStopped(t, "1/1")
}

// expectStopped checks the timeout's warning of iteration label: in a
// cgroup rooda knows it stopped everything the agent started; without
// one it claims only the group, whatever it found outside it being
// warned about on its own.
func (o outcome) expectStopped(t *testing.T, label string) {
	t.Helper()
	log := o.logLines()
	contained := "WARN: Iteration " + label + ": timed out after 1s; the agent and everything it started were stopped [timeout]\n"
	group := "WARN: Iteration " + label + ": timed out after 1s; the agent's process group was stopped [timeout]\n"
	if !strings.Contains(log, contained) && !strings.Contains(log, group) {
		t.Errorf("log lacks the timeout's warning of iteration %s\nstderr:\n%s", label, o.stderr)
	}
}

// TestEscapedWithoutEnvironmentStopped: a process that escaped with an
// empty environment carries no tag; in a cgroup it is still found by the
// iteration, and without one rooda stops it as it exits; either way it
// is named, and does not survive.
func TestEscapedWithoutEnvironmentStopped(t *testing.T) {
	w := newWorkspace(t, step{"escape": "60s", "daemon": "60s", "clean_env": true})
	o := w.run("build", "-n", "1")
	log := o.logLines()
	if !strings.Contains(log, "WARN: Iteration 1/1: the agent left 2 processes running outside its process group (") &&
		!strings.Contains(log, "WARN: stopped 2 processes still running below rooda as the run ended: ") {
		t.Errorf("no warning names the 2 escaped processes:\n%s", o.stderr)
	}
}

// TestOrphansReaped: an orphan that rooda adopted (a daemon, once the
// middle of its double fork exited) and that exits on its own while the
// agent still works is reaped at once, not left a zombie of rooda.
func TestOrphansReaped(t *testing.T) {
	w := newWorkspace(t, step{"daemon": "100ms", "delay": "60s"})
	s := w.start(w.command("build", "-n", "1"))
	w.waitForPids(2) // the agent, its daemon
	orphan := w.recordedPids()[1]
	for exists(orphan) {
		if time.Since(s.at) > hangGuard {
			t.Fatalf("orphan %d still a process (state %s) while the agent works", orphan, state(orphan))
		}
		time.Sleep(10 * time.Millisecond)
	}
	if !alive(w.recordedPids()[0]) {
		t.Fatal("the agent ended before its orphan was seen reaped: nothing was tested")
	}
	s.cmd.Process.Signal(syscall.SIGINT)
	w.wait(s).expect(t, 130)
}

// TestAgentDiesWithRooda: rooda killed outright takes its agent along
// (PR_SET_PDEATHSIG, or rooda's guard for an agent started from a
// confined thread), so the agent does not go on spending alone.
func TestAgentDiesWithRooda(t *testing.T) {
	w := newWorkspace(t, step{"delay": "60s"})
	s := w.start(w.command("build", "-n", "1"))
	w.waitForPids(1)
	agentPid := w.recordedPids()[0]
	s.cmd.Process.Kill()
	killedWait(t, s)
	deadline := time.Now().Add(hangGuard)
	for alive(agentPid) {
		if time.Now().After(deadline) {
			t.Fatalf("the agent %d outlived rooda, killed by SIGKILL", agentPid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// exists reports whether pid is still in the process table, a zombie
// included.
func exists(pid int) bool {
	_, err := os.Stat("/proc/" + strconv.Itoa(pid))
	return err == nil
}

func state(pid int) string {
	data, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	s := string(data)
	if i := strings.LastIndexByte(s, ')'); i >= 0 {
		return strings.Fields(s[i+1:])[0]
	}
	return "gone"
}

// TestWhatAKilledRoodaLeftDiesWithIt: rooda killed outright takes along
// what its agent started too, in the agent's group or out of it: its
// guard stops them (host/process's guard_linux.go).
func TestWhatAKilledRoodaLeftDiesWithIt(t *testing.T) {
	needsLandlock(t, sandbox.SignalsABI, "a confined start")
	w := newWorkspace(t, step{"child": "60s", "escape": "60s", "delay": "60s"})
	s := w.start(w.command("build", "-n", "1"))
	w.waitForPids(3) // the agent, its child, its escaped child
	s.cmd.Process.Kill()
	killedWait(t, s)
	deadline := time.Now().Add(hangGuard)
	for _, pid := range w.recordedPids() {
		for alive(pid) {
			if time.Now().After(deadline) {
				t.Fatalf("process %d of the agent outlived rooda, killed by SIGKILL", pid)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}

// TestNextRunStopsWhatAKilledRoodaLeft: rooda killed outright, its guard
// with it (as a kill of its whole tree or the OOM killer may), takes
// its agent along, but not what the agent started; in a cgroup those
// are found by the next rooda that starts an agent, and stopped.
func TestNextRunStopsWhatAKilledRoodaLeft(t *testing.T) {
	nextRunStopsWhatAKilledRoodaLeft(t, true)
}

// TestNextRunStopsWhatAKilledRoodaLeftWithoutCgroups: where rooda has no
// cgroup (ROODA_CGROUPS=off stands for a machine without one), what a
// rooda killed outright left is found by its tag, which names that
// rooda, and stopped by the next rooda that starts an agent.
func TestNextRunStopsWhatAKilledRoodaLeftWithoutCgroups(t *testing.T) {
	nextRunStopsWhatAKilledRoodaLeft(t, false)
}

func nextRunStopsWhatAKilledRoodaLeft(t *testing.T, cgroups bool) {
	var env []string
	if !cgroups {
		env = []string{"ROODA_CGROUPS=off"}
	}
	w := newWorkspace(t, step{"child": "60s", "escape": "60s", "delay": "60s"})
	w.env = append(w.env, env...)
	s := w.start(w.command("build", "-n", "1"))
	w.waitForPids(3) // the agent, its child, its escaped child
	left := w.recordedPids()[1:]
	if inRoodaCgroup(left[0]) != cgroups {
		s.cmd.Process.Kill()
		killedWait(t, s)
		if cgroups {
			t.Skip("SKIPPED: no writable cgroup v2 hierarchy here; what a killed rooda's agent started is out of reach")
		}
		t.Fatalf("process %d is in rooda's cgroup with ROODA_CGROUPS=off", left[0])
	}
	killGuard(t, s.cmd.Process.Pid)
	s.cmd.Process.Kill()
	killedWait(t, s)
	for _, pid := range left {
		if !alive(pid) {
			t.Fatalf("process %d ended with rooda: nothing to test", pid)
		}
	}
	next := newWorkspace(t, step{})
	next.env = append(next.env, env...)
	next.run("build", "-n", "1").expect(t, 2)
	for _, pid := range left {
		if alive(pid) {
			t.Errorf("process %d of a killed rooda's agent survived the next run", pid)
		}
	}
}

// inRoodaCgroup reports whether pid is in a cgroup that rooda made.
// guardsOf are the guards of the rooda pid (process.GuardArg), live or
// not yet reaped, wherever they were reparented.
func guardsOf(rooda int) []int {
	var found []int
	all, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, path := range all {
		cmdline, _ := os.ReadFile(path)
		args := strings.Split(string(cmdline), "\x00")
		if i := slices.Index(args, process.GuardArg); i >= 0 && i+1 < len(args) && args[i+1] == strconv.Itoa(rooda) {
			pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(path)))
			found = append(found, pid)
		}
	}
	return found
}

// killGuard kills the guard of the rooda pid, if it has one.
func killGuard(t *testing.T, rooda int) {
	t.Helper()
	for _, pid := range guardsOf(rooda) {
		syscall.Kill(pid, syscall.SIGKILL)
	}
}

// guardDone waits until the guard of the rooda pid, killed, has stopped
// what that rooda left and ended: a few milliseconds after rooda's end,
// where the death signal acted with it. An agent that rooda was forking
// as it died may run meanwhile, promptless, until the guard stops it.
func guardDone(t *testing.T, rooda int) {
	t.Helper()
	deadline := time.Now().Add(hangGuard)
	for slices.ContainsFunc(guardsOf(rooda), alive) {
		if time.Now().After(deadline) {
			t.Fatalf("the guard of rooda %d never ended", rooda)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// killedWait waits for the rooda of s, signalled, to end, and then for
// its guard (guardDone).
func killedWait(t *testing.T, s started) {
	t.Helper()
	s.cmd.Wait()
	guardDone(t, s.cmd.Process.Pid)
}

func inRoodaCgroup(pid int) bool {
	data, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cgroup")
	return strings.Contains(string(data), "/rooda-")
}
