package process

import (
	"context"
	"errors"
	"os"
	"runtime"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestConfineIsTheStartingThreads: what Confine does to the thread that
// starts the process, the process has (no_new_privs here, as a sandbox's
// Landlock domain), and the caller's thread does not; the thread is held
// while the process runs, whose death signal would come with its end.
func TestConfineIsTheStartingThreads(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	confine := func() error { return unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) }
	res := run(t, Command{Argv: sh("sleep 0.3; grep NoNewPrivs /proc/self/status"), Confine: confine})
	runtime.GC()
	if res.ExitCode != 0 || strings.Join(strings.Fields(string(res.Output)), " ") != "NoNewPrivs: 1" {
		t.Errorf("exit %d, signal %q, output %q", res.ExitCode, res.Signal, res.Output)
	}
	status, err := os.ReadFile("/proc/thread-self/status")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(status), "NoNewPrivs:\t0") {
		t.Errorf("the caller's thread was confined:\n%s", status)
	}
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
