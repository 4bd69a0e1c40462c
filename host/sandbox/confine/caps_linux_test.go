package confine

import (
	"os"
	"os/exec"
	"runtime"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// TestRootExecGainsNoCapability: a thread of a process run as root that
// dropped its capabilities execs a shell, which execs grep: grep, two
// execs on, holds none. uid 0 would otherwise take the whole bounding
// set at each exec.
func TestRootExecGainsNoCapability(t *testing.T) {
	const helper = "ROODA_TEST_DROP_THEN_EXEC"
	if os.Getenv(helper) == "1" {
		runtime.LockOSThread() // the dropped capabilities are this thread's
		if err := dropCapabilities(); err != nil {
			os.Stderr.WriteString(err.Error())
			os.Exit(2)
		}
		err := syscall.Exec("/bin/sh", []string{"sh", "-c", "grep -E '^Cap(Inh|Prm|Eff|Amb)' /proc/self/status"}, os.Environ())
		os.Stderr.WriteString(err.Error())
		os.Exit(2)
	}
	if os.Geteuid() != 0 || !holds(unix.CAP_SETPCAP) {
		t.Skip("needs root holding CAP_SETPCAP, whose exec would gain capabilities")
	}
	// Under no new privileges no exec gains any, whatever the code did.
	if status, err := os.ReadFile("/proc/self/status"); err != nil || strings.Contains(string(status), "NoNewPrivs:\t1") {
		t.Skip("no new privileges is set already: an exec would gain nothing anyway")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestRootExecGainsNoCapability$")
	cmd.Env = append(os.Environ(), helper+"=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	for _, set := range []string{"CapInh", "CapPrm", "CapEff", "CapAmb"} {
		if !strings.Contains(string(out), set+":\t0000000000000000") {
			t.Errorf("%s is not empty after the exec:\n%s", set, out)
		}
	}
}
