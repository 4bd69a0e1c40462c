package sandbox

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestAbstractSocketsScoped: under workspace the agent cannot connect to
// an abstract unix socket made outside its own tree (a D-Bus session
// bus, an X server); under off it can, as off changes only signals.
func TestAbstractSocketsScoped(t *testing.T) {
	needsABI(t, SignalsABI, "scoping abstract unix sockets")
	name := fmt.Sprintf("@rooda-test-%d", os.Getpid())
	ln, err := net.Listen("unix", name)
	must(t, err)
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	for mode, want := range map[string]string{Workspace: "dial-refused", BestEffort: "dial-refused", Off: "dial-ok"} {
		if out := dialConfined(t, Spec{Mode: mode, Write: []string{"/dev/null"}}, name); !strings.Contains(out, want) {
			t.Errorf("%s: %q lacks %s", mode, out, want)
		}
	}
}

// dialConfined has this test binary, confined by spec, connect to the
// unix socket name (TestDialHelper) and say whether it could.
func dialConfined(t *testing.T, spec Spec, name string) string {
	t.Helper()
	self, err := os.Executable()
	must(t, err)
	argv, env, err := Wrap(self, spec, []string{self, "-test.run=^TestDialHelper$"})
	must(t, err)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), env, "ROODA_TEST_DIAL="+name)
	out, _ := cmd.CombinedOutput()
	return string(out)
}

// TestDialHelper is dialConfined's client, doing nothing in a run of
// the tests.
func TestDialHelper(t *testing.T) {
	name := os.Getenv("ROODA_TEST_DIAL")
	if name == "" {
		return
	}
	if c, err := net.Dial("unix", name); err != nil {
		fmt.Println("dial-refused:", err)
	} else {
		c.Close()
		fmt.Println("dial-ok")
	}
}
