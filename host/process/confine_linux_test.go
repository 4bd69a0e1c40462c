package process

import (
	"bufio"
	"context"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// noNewPrivs stands for a sandbox's Landlock domain in these tests: a
// thread's, handed down at a fork, which a thread cannot leave.
func noNewPrivs() error { return unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) }

// TestConfineIsTheStartingThreads: what Confine does to the thread that
// starts the process, the process has, and no thread of rooda has once
// the process has started: the caller's was never confined, and the one
// that started it is gone, for the process not to share a domain with
// any (it could signal and ptrace it).
func TestConfineIsTheStartingThreads(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	c := Command{Argv: sh("sleep 0.3; grep NoNewPrivs /proc/self/status"), Confine: noNewPrivs, MaxOutput: 1024}
	p, err := start(c)
	if err != nil {
		t.Fatal(err)
	}
	confined := confinedThreads(t)
	res := p.wait(context.Background(), c)
	p.collect(&res, c)
	if res.ExitCode != 0 || strings.Join(strings.Fields(string(res.Output)), " ") != "NoNewPrivs: 1" {
		t.Errorf("exit %d, signal %q, output %q", res.ExitCode, res.Signal, res.Output)
	}
	if len(confined) > 0 {
		t.Errorf("threads %v of rooda were confined while the process ran", confined)
	}
}

// confinedThreads are the threads of this process with no_new_privs.
func confinedThreads(t *testing.T) []string {
	t.Helper()
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		t.Fatal(err)
	}
	var confined []string
	for _, task := range tasks {
		status, err := os.ReadFile(filepath.Join("/proc/self/task", task.Name(), "status"))
		if err == nil && strings.Contains(string(status), "NoNewPrivs:\t1") {
			confined = append(confined, task.Name())
		}
	}
	return confined
}

// TestConfineThatFailsStartsNothing: a Confine that fails is Run's
// error, and no process starts.
func TestConfineThatFailsStartsNothing(t *testing.T) {
	refused := errors.New("refused")
	mark := t.TempDir() + "/ran"
	_, err := Run(context.Background(), Command{Argv: sh("touch " + mark), Confine: func() error { return refused }})
	if !errors.Is(err, refused) {
		t.Errorf("Run's error %v", err)
	}
	if _, err := os.Stat(mark); err == nil {
		t.Error("the process ran")
	}
}

// diesAfterAConfinedStart is the helper process of
// TestGuardStopsWhatADeadRoodaLeft: a rooda that starts a confined
// process, which starts a child that leaves its group, prints their
// pids, and is killed outright.
const diesAfterAConfinedStart = "ROODA_TEST_DIES_AFTER_A_CONFINED_START"

func dieAfterAConfinedStart() {
	AdoptOrphans()
	script := "setsid sleep 60 & echo $!; echo $$; sleep 60"
	if _, err := start(Command{Argv: sh(script), Confine: noNewPrivs, MaxOutput: 1024, Stream: os.Stdout}); err != nil {
		panic(err)
	}
	time.Sleep(time.Hour) // killed by the test
}

// TestGuardStopsWhatADeadRoodaLeft: a rooda killed outright (SIGKILL)
// after starting a process from a confined thread, which has no death
// signal, takes that process along, and what it started outside its
// group: the guard stops them.
func TestGuardStopsWhatADeadRoodaLeft(t *testing.T) {
	rooda := helperRooda(t, diesAfterAConfinedStart)
	out, err := rooda.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := rooda.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(out)
	var pids []int
	for len(pids) < 2 && lines.Scan() {
		pid, err := strconv.Atoi(strings.TrimSpace(lines.Text()))
		if err != nil {
			t.Fatalf("the helper printed %q", lines.Text())
		}
		pids = append(pids, pid)
	}
	if len(pids) < 2 {
		rooda.Process.Kill()
		rooda.Wait()
		t.Fatalf("the helper printed %v", pids)
	}
	rooda.Process.Kill()
	rooda.Wait()
	deadline := time.Now().Add(10 * time.Second)
	for _, pid := range pids {
		for Alive(pid, 0) {
			if time.Now().After(deadline) {
				syscall.Kill(pid, syscall.SIGKILL)
				t.Fatalf("process %d outlived the rooda that started it", pid)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}

// TestConfinedStartsWithOneProcessor: with one processor (a machine or
// a container of one CPU), a confined start that lands on the main
// thread moves off it once, and does not come back to it for ever.
func TestConfinedStartsWithOneProcessor(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	ended := make(chan error, 1)
	go func() {
		for range 20 {
			if _, err := Run(context.Background(), Command{Argv: []string{"true"}, Confine: noNewPrivs, MaxOutput: 1024}); err != nil {
				ended <- err
				return
			}
		}
		ended <- nil
	}()
	select {
	case err := <-ended:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(hangGuard):
		t.Fatal("20 confined starts with one processor never ended")
	}
}

// TestGuardProgramThatIsNoGuardIsPassedOver: a guard program that exits
// without saying it is ready (an older rooda-sandbox, which knows no
// guard) is passed over for the next; with none left, a confined start
// fails, and nothing starts without its guard.
func TestGuardProgramThatIsNoGuardIsPassedOver(t *testing.T) {
	self := testBinary(t)
	older := []string{"/bin/sh", "-c", "echo 'usage: rooda __sandbox -- COMMAND' >&2; exit 127"}
	useGuardPrograms(t, older, []string{self, GuardArg})
	run(t, Command{Argv: sh("true"), Confine: noNewPrivs})
	cmdline, _ := os.ReadFile("/proc/" + strconv.Itoa(int(theGuard.pid.Load())) + "/cmdline")
	if args := strings.Split(string(cmdline), "\x00"); len(args) < 2 || args[0] != self || args[1] != GuardArg {
		t.Errorf("the guard runs %q", args)
	}
	theGuard.dismiss()
	guardPrograms = [][]string{older}
	mark := t.TempDir() + "/ran"
	_, err := Run(context.Background(), Command{Argv: sh("touch " + mark), Confine: noNewPrivs})
	if err == nil || !strings.Contains(err.Error(), "is no guard") {
		t.Errorf("Run's error %v", err)
	}
	if _, err := os.Stat(mark); err == nil {
		t.Error("the process ran without its guard")
	}
}

// TestGuardReadsWhatRoodaTellsIt: the guard keeps each agent rooda told
// it of, by tag, with its pid, start time and cgroup (a path with a
// space in it whole), forgets one that ended, and is dismissed by ".".
func TestGuardReadsWhatRoodaTellsIt(t *testing.T) {
	read := func(lines string) (map[string]watchedAgent, bool) {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		w.WriteString(lines)
		w.Close()
		return readWatched(int(r.Fd()))
	}
	watched, dismissed := read("s 1.2.1 /sys/fs/cgroup/my unit/agent-1\np 1.2.1 300 77\ns 1.2.2 \np 1.2.2 301 78\ne 1.2.2\ns 1.2.3 \n")
	want := map[string]watchedAgent{
		"1.2.1": {cgroup: "/sys/fs/cgroup/my unit/agent-1", pid: 300, start: 77},
		"1.2.3": {},
	}
	if dismissed || !maps.Equal(watched, want) {
		t.Errorf("watched %+v (dismissed %t), want %+v", watched, dismissed, want)
	}
	if _, dismissed := read("s 1.2.1 \np 1.2.1 300 77\n.\n"); !dismissed {
		t.Error("not dismissed by .")
	}
}

// TestDismissedGuardEndsBeforeRooda: a rooda that ends in order
// dismisses its guard and waits for it, so that nothing of it is left
// the moment rooda is gone.
func TestDismissedGuardEndsBeforeRooda(t *testing.T) {
	run(t, Command{Argv: []string{"true"}, Confine: noNewPrivs})
	pid := int(theGuard.pid.Load())
	if pid == 0 || !Alive(pid, 0) {
		t.Fatalf("no guard runs (pid %d)", pid)
	}
	theGuard.dismiss()
	if _, err := os.Stat("/proc/" + strconv.Itoa(pid)); err == nil {
		t.Errorf("the guard %d still runs once dismissed", pid)
	}
}

// TestStartGuardStartsItAhead: StartGuard has the guard started before
// any process is, and the first process started is told to that one,
// not to a guard of its own.
func TestStartGuardStartsItAhead(t *testing.T) {
	theGuard.dismiss()
	defer theGuard.dismiss()
	theGuard.pid.Store(0)
	StartGuard()
	deadline := time.Now().Add(hangGuard)
	for theGuard.pid.Load() == 0 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	pid := int(theGuard.pid.Load())
	if pid == 0 || !Alive(pid, 0) {
		t.Fatalf("no guard runs (pid %d) with no process started", pid)
	}
	run(t, Command{Argv: []string{"true"}, Confine: noNewPrivs})
	if now := int(theGuard.pid.Load()); now != pid {
		t.Errorf("the first process started guard %d, where %d was started ahead", now, pid)
	}
}

// TestAGuardStartingIsNoStraggler: a guard that StartGuard is starting
// (slow to say it is ready) is not stopped as a straggler by a rooda
// that exits meanwhile; it is dismissed, as a guard is.
func TestAGuardStartingIsNoStraggler(t *testing.T) {
	useGuardPrograms(t, []string{"/bin/sh", "-c", `sleep 0.3; exec "$@"`, "sh", testBinary(t), GuardArg})
	StartGuard()
	for deadline := time.Now().Add(hangGuard); len(children()) == 0 && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond) // the guard forked, not yet ready
	}
	if left := StopStragglers(); len(left) > 0 {
		t.Errorf("the guard, as it started, was stopped as a straggler: %+v", left)
	}
}

// testBinary is the test's own program, which TestMain makes a guard of.
func testBinary(t *testing.T) string {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return self
}

// useGuardPrograms has the test's guards run by programs, once the guard
// running is dismissed; the test's end dismisses theirs and gives the
// programs of before back.
func useGuardPrograms(t *testing.T, programs ...[]string) {
	saved := guardPrograms
	t.Cleanup(func() {
		theGuard.dismiss()
		guardPrograms = saved
	})
	theGuard.dismiss()
	guardPrograms = programs
}
