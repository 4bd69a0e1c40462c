package suspend

import (
	"bytes"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// childVariable makes the test binary a child that stops itself.
const childVariable = "SUSPEND_TEST_STOP_SELF"

func TestMain(m *testing.M) {
	if os.Getenv(childVariable) != "" {
		stopSelf()
		os.Stdout.WriteString("went on\n")
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// guard bounds the waits for the child: a guard against a hang, not a
// measure of speed.
const guard = 10 * time.Second

// stoppingChild starts the test binary as a child that stops itself,
// with attr.
func stoppingChild(t *testing.T, attr *syscall.SysProcAttr) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	out := &bytes.Buffer{}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childVariable+"=1")
	cmd.Stdout, cmd.SysProcAttr = out, attr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	return cmd, out
}

// ended waits for the child to end, and fails the test if it does not.
func ended(t *testing.T, cmd *exec.Cmd) {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(guard):
		t.Fatalf("the child never went on; state %q", state(cmd.Process.Pid))
	}
}

// TestStopSelfStopsUntilContinued: in a process group a shell could
// continue, rooda stops as SIGTSTP's default action stops it (state T),
// and goes on only once continued.
func TestStopSelfStopsUntilContinued(t *testing.T) {
	cmd, out := stoppingChild(t, &syscall.SysProcAttr{Setpgid: true})
	deadline := time.Now().Add(guard)
	for state(cmd.Process.Pid) != "T" {
		if time.Now().After(deadline) {
			t.Fatalf("the child did not stop; state %q, output %q", state(cmd.Process.Pid), out)
		}
		time.Sleep(10 * time.Millisecond)
	}
	syscall.Kill(cmd.Process.Pid, syscall.SIGCONT)
	ended(t, cmd)
	if out.String() != "went on\n" {
		t.Errorf("output %q", out)
	}
}

// TestStopSelfInAnOrphanedGroupGoesOn: with no shell to continue it (its
// process group orphaned, here a session of its own), the kernel
// discards the stop, as for any program's Ctrl+Z: rooda goes on at once
// instead of staying stopped for good.
func TestStopSelfInAnOrphanedGroupGoesOn(t *testing.T) {
	cmd, out := stoppingChild(t, &syscall.SysProcAttr{Setsid: true})
	ended(t, cmd)
	if out.String() != "went on\n" {
		t.Errorf("output %q", out)
	}
}

// state is the process's state in /proc: "T" stopped.
func state(pid int) string {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return ""
	}
	s := string(stat)
	if fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:]); len(fields) > 0 {
		return fields[0]
	}
	return ""
}
