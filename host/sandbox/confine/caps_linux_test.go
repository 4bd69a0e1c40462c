package confine

import (
	"os"
	"os/exec"
	"runtime"
	"strings"
	"syscall"
	"testing"
)

// TestRootExecGainsNoCapability: a thread of a process run as root that
// dropped its capabilities execs a shell, which gains none back, and
// nor does what the shell execs in turn (grep): uid 0 would otherwise
// take the whole bounding set at each exec.
func TestRootExecGainsNoCapability(t *testing.T) {
	const helper = "ROODA_TEST_DROP_THEN_EXEC"
	if os.Getenv(helper) == "1" {
		runtime.LockOSThread() // the dropped capabilities are this thread's
		if err := dropCapabilities(); err != nil {
			os.Stderr.WriteString(err.Error())
			os.Exit(2)
		}
		err := syscall.Exec("/bin/sh", []string{"sh", "-c", "grep -E '^Cap(Prm|Eff|Amb)' /proc/self/status"}, os.Environ())
		os.Stderr.WriteString(err.Error())
		os.Exit(2)
	}
	if os.Geteuid() != 0 {
		t.Skip("needs root, whose exec would gain capabilities")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestRootExecGainsNoCapability$")
	cmd.Env = append(os.Environ(), helper+"=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	for _, set := range []string{"CapPrm", "CapEff", "CapAmb"} {
		if !strings.Contains(string(out), set+":\t0000000000000000") {
			t.Errorf("%s is not empty after the exec:\n%s", set, out)
		}
	}
}
