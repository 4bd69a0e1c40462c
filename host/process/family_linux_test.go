package process

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// waitEscaped waits until the background job $! is in a session of its
// own and has become sleep: an agent that exits before its child called
// setsid has it stopped with its group, which is not what these tests are
// about, and one found between setsid and its exec is named setsid.
const waitEscaped = ` pid=$!; until [ "$(cut -d' ' -f6 /proc/$pid/stat)" = "$pid" ] && [ "$(cat /proc/$pid/comm)" = sleep ]; do sleep 0.01; done`

// eachWay runs test with the agents in cgroups, where the machine has
// them, and with tags alone.
func eachWay(t *testing.T, test func(t *testing.T)) {
	t.Run("cgroup", func(t *testing.T) {
		if baseCgroup() == "" || cgroupsOff.Load() {
			t.Skip("SKIPPED: no writable cgroup v2 hierarchy on this machine; the tags are tested")
		}
		test(t)
	})
	t.Run("tag", func(t *testing.T) {
		adopt(t)
		withoutCgroups(t)
		test(t)
	})
}

// adopt makes the test process the subreaper that rooda is, for one
// test: the reaper must not run while others start processes with
// os/exec (the benchmarks do).
func adopt(t *testing.T) {
	AdoptOrphans()
	t.Cleanup(stopAdopting)
}

func withoutCgroups(t *testing.T) {
	was := cgroupsOff.Swap(true)
	t.Cleanup(func() { cgroupsOff.Store(was) })
}

// dead fails the test for each process still alive, and kills it.
func dead(t *testing.T, list ...Found) {
	t.Helper()
	for _, p := range list {
		if syscall.Kill(p.PID, 0) == nil && state(p.PID) != 'Z' {
			syscall.Kill(p.PID, syscall.SIGKILL)
			t.Errorf("process %v survived", p)
		}
	}
}

func state(pid int) byte {
	p, _ := readStat(pid)
	return p.state
}

// TestEscapedChildStopped: a child that left the agent's group by setsid
// is found and stopped once the group is gone, and named.
func TestEscapedChildStopped(t *testing.T) {
	eachWay(t, func(t *testing.T) {
		res := run(t, Command{Argv: sh(`setsid sleep 30 >/dev/null 2>&1 & echo $!;` + waitEscaped), Grace: time.Second})
		pid, err := strconv.Atoi(strings.TrimSpace(string(res.Output)))
		if err != nil {
			t.Fatalf("output %q", res.Output)
		}
		if len(res.Escaped) != 1 || res.Escaped[0].PID != pid || res.Escaped[0].Name != "sleep" || res.EscapedSurvived {
			t.Errorf("escaped %v (survived %t), want [%d sleep]", res.Escaped, res.EscapedSurvived, pid)
		}
		dead(t, Found{PID: pid})
	})
}

// TestEscapedChildIgnoringTermKilled: one that ignores SIGTERM gets
// SIGKILL after the grace period, and the result says so.
func TestEscapedChildIgnoringTermKilled(t *testing.T) {
	eachWay(t, func(t *testing.T) {
		ready := filepath.Join(t.TempDir(), "ready")
		script := `setsid sh -c 'trap "" TERM; touch ` + ready + `; sleep 30' >/dev/null 2>&1 & until [ -e ` + ready + ` ]; do sleep 0.01; done`
		res := run(t, Command{Argv: sh(script), Grace: 200 * time.Millisecond})
		if len(res.Escaped) == 0 || !res.Killed || res.EscapedSurvived {
			t.Errorf("escaped %v, killed %t, survived %t", res.Escaped, res.Killed, res.EscapedSurvived)
		}
		dead(t, res.Escaped...)
	})
}

// cleanEscape starts a child that leaves the group with an empty
// environment: no tag tells whose it is.
const cleanEscape = `env -i setsid sleep 30 >/dev/null 2>&1 & echo $!;` + waitEscaped

// TestCgroupHoldsWhatClearedItsEnvironment: in a cgroup, a child that
// cleared its environment is found all the same, by the iteration.
func TestCgroupHoldsWhatClearedItsEnvironment(t *testing.T) {
	if baseCgroup() == "" || cgroupsOff.Load() {
		t.Skip("SKIPPED: no writable cgroup v2 hierarchy on this machine")
	}
	res := run(t, Command{Argv: sh(cleanEscape), Grace: time.Second})
	if len(res.Escaped) != 1 || res.Escaped[0].Name != "sleep" {
		t.Errorf("escaped %v, want the sleep", res.Escaped)
	}
	dead(t, res.Escaped...)
}

// TestCgroupMadeAgainAfterARun: a run's end removes rooda's cgroup
// (StopStragglers); an agent a later run in the same process starts gets
// one all the same, and what it leaves is found. Before, the second of
// `go test -count=2` found no escaped process.
func TestCgroupMadeAgainAfterARun(t *testing.T) {
	if baseCgroup() == "" || cgroupsOff.Load() {
		t.Skip("SKIPPED: no writable cgroup v2 hierarchy on this machine")
	}
	StopStragglers()
	res := run(t, Command{Argv: sh(cleanEscape), Grace: time.Second})
	if len(res.Escaped) != 1 || res.Escaped[0].Name != "sleep" || !res.Contained {
		t.Errorf("after a run's end: escaped %v, contained %t; want the sleep, contained", res.Escaped, res.Contained)
	}
	dead(t, res.Escaped...)
}

// TestStragglersStopped: without a cgroup, a child that cleared its
// environment escapes the iteration, and is stopped as rooda exits.
func TestStragglersStopped(t *testing.T) {
	adopt(t)
	withoutCgroups(t)
	res := run(t, Command{Argv: sh(cleanEscape), Grace: time.Second})
	pid, err := strconv.Atoi(strings.TrimSpace(string(res.Output)))
	if err != nil || len(res.Escaped) != 0 {
		t.Fatalf("output %q, escaped %v: want no escapee found by tag", res.Output, res.Escaped)
	}
	left := StopStragglers()
	if len(left) != 1 || left[0].PID != pid {
		t.Errorf("stragglers %v, want [%d sleep]", left, pid)
	}
	dead(t, Found{PID: pid})
}

// TestReaperLeavesStartedChildren: the reaper takes an exited orphan, but
// never a child os/exec is still to wait for, whose exit status would be
// lost.
func TestReaperLeavesStartedChildren(t *testing.T) {
	adopt(t)
	p := &started{cmd: exec.Command("sh", "-c", "exit 3")}
	if err := kin.startTracked(p); err != nil {
		t.Fatal(err)
	}
	for state(p.cmd.Process.Pid) != 'Z' {
		time.Sleep(time.Millisecond)
	}
	listings := adoptedListings.Load()
	kin.reapOnSignal()
	if adoptedListings.Load() != listings {
		t.Error("SIGCHLD from a started child listed rooda's children")
	}
	kin.reapOrphans()
	err := p.cmd.Wait()
	kin.forget(p)
	if p.cmd.ProcessState == nil || p.cmd.ProcessState.ExitCode() != 3 {
		t.Errorf("wait: %v: the reaper took the exit status of a child it did not adopt", err)
	}
}

// TestSignalReapsAnOrphan: on SIGCHLD from a child rooda did not start
// through Run, an adopted orphan, the reaper lists rooda's children and
// takes it.
func TestSignalReapsAnOrphan(t *testing.T) {
	adopt(t)
	listings := adoptedListings.Load()
	orphan := exec.Command("sh", "-c", "exit 0")
	if err := orphan.Start(); err != nil {
		t.Fatal(err)
	}
	// The reaper's own SIGCHLD may take it first: that is the same call.
	for s := state(orphan.Process.Pid); s != 'Z' && s != 0; s = state(orphan.Process.Pid) {
		time.Sleep(time.Millisecond)
	}
	kin.reapOnSignal()
	if adoptedListings.Load() == listings {
		t.Error("the orphan was taken without a listing")
	}
	if s := state(orphan.Process.Pid); s != 0 {
		t.Errorf("the orphan is still there, in state %q", s)
	}
	orphan.Wait()
}

// adoptsThenStarts is the helper process of TestReaperWaitsForAStart:
// a rooda that adopts orphans, then starts a process.
const adoptsThenStarts = "ROODA_TEST_ADOPTS_THEN_STARTS"

func adoptThenStart() {
	AdoptOrphans()
	fmt.Println("before a start, reaping:", reaping.Load())
	if _, err := Run(context.Background(), Command{Argv: []string{"true"}, MaxOutput: 1024}); err != nil {
		panic(err)
	}
	fmt.Println("after a start, reaping:", reaping.Load())
	os.Exit(0)
}

// TestReaperWaitsForAStart: a rooda that adopts orphans catches SIGCHLD
// from its first start on, not before: a command that starts nothing
// does without the thread it costs. TestOrphansReaped (internal/cli)
// shows the reaper at work.
func TestReaperWaitsForAStart(t *testing.T) {
	out, err := helperRooda(t, adoptsThenStarts).Output()
	want := "before a start, reaping: false\nafter a start, reaping: true\n"
	if err != nil || string(out) != want {
		t.Errorf("the helper printed %q (%v), want %q", out, err, want)
	}
}

// helperRooda is this test program run as a helper process, which
// TestMain sends to the helper that env (set) names; it runs no test.
func helperRooda(t *testing.T, env string) *exec.Cmd {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(self, "-test.run", "^$")
	cmd.Env = append(os.Environ(), env+"=1")
	return cmd
}

// TestNoCgroupLeftByACommandNotFound: a command that cannot start leaves
// no cgroup and no descriptor behind.
func TestNoCgroupLeftByACommandNotFound(t *testing.T) {
	base := baseCgroup()
	if base == "" || cgroupsOff.Load() {
		t.Skip("SKIPPED: no writable cgroup v2 hierarchy on this machine")
	}
	before, _ := os.ReadDir(base)
	for range 5 {
		if _, err := Run(context.Background(), Command{Argv: []string{"no-such-command-at-all"}, MaxOutput: 1024}); err == nil {
			t.Fatal("a command that does not exist started")
		}
	}
	if after, _ := os.ReadDir(base); len(after) != len(before) {
		t.Errorf("%d entries in %s, %d before: cgroups left behind", len(after), base, len(before))
	}
}

// TestMain leaves no process and no cgroup of the tests behind.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == GuardArg {
		GuardMain(os.Args[2:])
	}
	if os.Getenv(adoptsThenStarts) != "" {
		adoptThenStart() // without a guard, which would outlive it
	}
	self, err := os.Executable()
	if err != nil {
		panic(err)
	}
	UseGuard([]string{self, GuardArg})
	if os.Getenv(diesAfterAConfinedStart) != "" {
		dieAfterAConfinedStart()
	}
	code := m.Run()
	StopStragglers()
	os.Exit(code)
}

// TestStartTime: a live process has a start time, the same each time it
// is read, no earlier than its parent's; an ended one has none.
func TestStartTime(t *testing.T) {
	self := StartTime(os.Getpid())
	if self == 0 || StartTime(os.Getpid()) != self {
		t.Errorf("own start time %d, then %d", self, StartTime(os.Getpid()))
	}
	child := exec.Command("sleep", "30")
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	started := StartTime(child.Process.Pid)
	child.Process.Kill()
	child.Wait()
	if started < self {
		t.Errorf("the child started at %d, before its parent at %d", started, self)
	}
	if gone := StartTime(child.Process.Pid); gone != 0 {
		t.Errorf("an ended process has start time %d", gone)
	}
}

// zombieChild tells whether a child exited without taking its exit
// status: os/exec, which waits for the agent, still gets it.
func TestZombieChildLeavesTheStatus(t *testing.T) {
	if _, ok := zombieChild(); ok {
		t.Fatal("a zombie child before any was started")
	}
	cmd := exec.Command("sh", "-c", "exit 3")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for state(cmd.Process.Pid) != 'Z' {
		time.Sleep(time.Millisecond)
	}
	if pid, ok := zombieChild(); !ok || pid != cmd.Process.Pid {
		t.Errorf("the exited child %d not seen: %d, %v", cmd.Process.Pid, pid, ok)
	}
	if _, ok := zombieChild(); !ok {
		t.Error("the exited child not seen a second time: the first look reaped it")
	}
	if err := cmd.Wait(); cmd.ProcessState == nil || cmd.ProcessState.ExitCode() != 3 {
		t.Errorf("os/exec got %v, %v; want exit status 3", err, cmd.ProcessState)
	}
	if _, ok := zombieChild(); ok {
		t.Error("a zombie child after os/exec waited for it")
	}
}

// children lists rooda's child processes from each thread's list.
func TestChildrenListsAChild(t *testing.T) {
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer cmd.Process.Kill()
	for _, p := range children() {
		if p.pid == cmd.Process.Pid {
			return
		}
	}
	t.Errorf("child %d not among %v", cmd.Process.Pid, children())
}

// A cgroup is empty, by the kernel's word, once no live process is in it.
func TestCgroupEmpty(t *testing.T) {
	g := newCgroup()
	if g == nil {
		t.Skip("SKIPPED: no writable cgroup v2 hierarchy on this machine")
	}
	defer g.remove()
	if !g.empty() {
		t.Error("a new cgroup not empty")
	}
	cmd := exec.Command("sleep", "30")
	cmd.SysProcAttr = sysProcAttr(g, true)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if g.empty() || len(g.find()) != 1 {
		t.Errorf("a cgroup with a process: empty %t, found %v", g.empty(), g.find())
	}
	cmd.Process.Kill()
	cmd.Wait()
	if !g.empty() || len(g.find()) != 0 {
		t.Errorf("a cgroup whose process was killed: empty %t, found %v", g.empty(), g.find())
	}
}

// TestStrayWriterCannotHoldTheIteration: without a cgroup, a child that
// cleared its environment (no tag names it) and holds the output pipe
// outlives the agent; the iteration ends all the same, with the output
// printed before, while that child still runs.
func TestStrayWriterCannotHoldTheIteration(t *testing.T) {
	adopt(t)
	withoutCgroups(t)
	res := run(t, Command{Argv: sh(`env -i setsid sleep 30 & echo $!;` + waitEscaped + `; echo "<promise>SUCCESS</promise>"`), Grace: time.Second})
	lines := strings.Split(strings.TrimSpace(string(res.Output)), "\n")
	pid, err := strconv.Atoi(lines[0])
	if err != nil || len(lines) != 2 || lines[1] != "<promise>SUCCESS</promise>" {
		t.Fatalf("output %q", res.Output)
	}
	if state(pid) == 0 || state(pid) == 'Z' {
		t.Errorf("the stray writer %d is gone: the iteration waited for it", pid)
	}
	syscall.Kill(pid, syscall.SIGKILL)
	var ws syscall.WaitStatus
	syscall.Wait4(pid, &ws, 0, nil) // adopted: reaped here, or a later test finds its zombie
}

// TestExitedUnwaitedOfAReapedChild: a pidfd whose process was reaped
// elsewhere (an abandoned agent, reaped with its group) says so, ECHILD,
// so that waitExit stops waiting for an exit it will never see.
func TestExitedUnwaitedOfAReapedChild(t *testing.T) {
	cmd := exec.Command("true")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	fd, err := unix.PidfdOpen(cmd.Process.Pid, 0)
	if err != nil {
		cmd.Wait()
		t.Skip("SKIPPED: no pidfd_open on this kernel")
	}
	defer unix.Close(fd)
	var ws syscall.WaitStatus
	syscall.Wait4(cmd.Process.Pid, &ws, 0, nil)
	if _, exited, errno := exitedUnwaited(unix.P_PIDFD, fd); exited || errno != syscall.ECHILD {
		t.Errorf("exited %t, errno %v; want false, ECHILD", exited, errno)
	}
}

// TestACgroupServesTheNextAgent: an agent's cgroup, left empty and
// thawed, is the next agent's, where it is found all the same (no mkdir
// and rmdir of the kernel's an iteration); one whose processes had to be
// killed with cgroup.kill is not, for the kernel then kills whatever
// starts in it, and the agent after starts and ends as it should.
func TestACgroupServesTheNextAgent(t *testing.T) {
	if baseCgroup() == "" || cgroupsOff.Load() {
		t.Skip("SKIPPED: no writable cgroup v2 hierarchy on this machine")
	}
	own := func() string {
		t.Helper()
		res := run(t, Command{Argv: sh(`grep '^0::' /proc/self/cgroup`)})
		if res.ExitCode != 0 {
			t.Fatalf("an agent ended %d (%s)", res.ExitCode, res.Signal)
		}
		return string(res.Output)
	}
	first := own()
	if second := own(); second != first {
		t.Errorf("the next agent's cgroup is %q, the one before's %q: not kept", second, first)
	}
	ready := filepath.Join(t.TempDir(), "ready")
	script := `setsid sh -c 'trap "" TERM; touch ` + ready + `; sleep 30' >/dev/null 2>&1 & until [ -e ` + ready + ` ]; do sleep 0.01; done; grep '^0::' /proc/self/cgroup`
	res := run(t, Command{Argv: sh(script), Grace: 200 * time.Millisecond})
	if !res.Killed || res.EscapedSurvived {
		t.Fatalf("the escaped child: killed %t, survived %t", res.Killed, res.EscapedSurvived)
	}
	dead(t, res.Escaped...)
	if next := own(); next == string(res.Output) {
		t.Errorf("a cgroup killed with cgroup.kill served the next agent: %q", next)
	}
	res = run(t, Command{Argv: sh(cleanEscape), Grace: time.Second})
	if len(res.Escaped) != 1 || res.Escaped[0].Name != "sleep" || !res.Contained {
		t.Errorf("in a cgroup kept from an agent before: escaped %v, contained %t; want the sleep", res.Escaped, res.Contained)
	}
	dead(t, res.Escaped...)
	// An agent that kills its own cgroup (cgroup.kill) ends by a signal:
	// its cgroup is not kept, and the agents after it start.
	killsItself := `d=$(grep '^0::' /proc/self/cgroup | cut -c4-); for m in /sys/fs/cgroup/unified /sys/fs/cgroup; do [ -e "$m$d/cgroup.kill" ] && echo 1 >"$m$d/cgroup.kill"; done; sleep 5`
	if res := run(t, Command{Argv: sh(killsItself), Grace: time.Second}); res.Signal == "" {
		t.Fatalf("an agent writing its cgroup.kill ended %d", res.ExitCode)
	}
	own()
	own()
}

// TestACgroupKeptButGoneIsMadeAgain: a cgroup kept for the next agent
// that is gone when it starts (an agent with the rights removed it) is
// replaced by a new one, not taken for a kernel that refuses cgroups.
func TestACgroupKeptButGoneIsMadeAgain(t *testing.T) {
	if baseCgroup() == "" || cgroupsOff.Load() {
		t.Skip("SKIPPED: no writable cgroup v2 hierarchy on this machine")
	}
	t.Cleanup(func() { cgroupsOff.Store(false) }) // as it was, whatever the test found
	run(t, Command{Argv: sh("true")})
	cgroupBase.mu.Lock()
	var kept []string
	for _, g := range cgroupBase.spare {
		kept = append(kept, g.dir)
	}
	cgroupBase.mu.Unlock()
	if len(kept) == 0 {
		t.Fatal("no cgroup kept")
	}
	for _, dir := range kept {
		if err := syscall.Rmdir(dir); err != nil {
			t.Fatal(err)
		}
	}
	res := run(t, Command{Argv: sh(`grep '^0::' /proc/self/cgroup`)})
	if got := string(res.Output); cgroupsOff.Load() || !strings.Contains(got, "/agent-") {
		t.Errorf("after the kept cgroup went: started in %q, cgroups off %t", got, cgroupsOff.Load())
	}
}
