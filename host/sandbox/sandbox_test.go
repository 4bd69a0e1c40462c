package sandbox

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestMain lets the test binary be its own trampoline, as rooda is.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == Arg {
		Main(os.Args[2:])
	}
	os.Exit(m.Run())
}

// confined runs a shell line through the trampoline under spec and
// returns what it printed.
func confined(t *testing.T, spec Spec, line string) string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	argv, env, err := Wrap(self, spec, []string{"sh", "-c", line})
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), env)
	out, _ := cmd.CombinedOutput()
	return string(out)
}

// TestWritesOnlyWhereAllowed: under workspace, the agent writes in the
// directories it is given and /dev/null, and nowhere else; it cannot
// signal a process outside its own tree, in any mode.
func TestWritesOnlyWhereAllowed(t *testing.T) {
	needsABI(t, SignalsABI, "scoping signals")
	ws, outside := t.TempDir(), t.TempDir()
	spec := Spec{Mode: Workspace, Write: []string{ws, "/dev/null"}}
	out := confined(t, spec, `echo in > `+ws+`/a && echo in-ok; echo out > `+outside+`/b 2>/dev/null || echo out-refused; echo x > /dev/null && echo null-ok; kill -0 `+itoa(os.Getpid())+` 2>/dev/null || echo kill-refused`)
	for _, want := range []string{"in-ok", "out-refused", "null-ok", "kill-refused"} {
		if !strings.Contains(out, want) {
			t.Errorf("confined: %q lacks %s", out, want)
		}
	}
	if _, err := os.Stat(filepath.Join(outside, "b")); err == nil {
		t.Error("a write outside the workspace went through")
	}
	out = confined(t, Spec{Mode: Off}, `echo out > `+outside+`/c && echo write-ok; kill -0 `+itoa(os.Getpid())+` 2>/dev/null || echo kill-refused`)
	if !strings.Contains(out, "write-ok") || !strings.Contains(out, "kill-refused") {
		t.Errorf("off: writes as before, signals scoped: %q", out)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// TestAgentThatCannotStart: an agent the trampoline cannot exec is told
// from one that failed: NotStarted says why.
func TestAgentThatCannotStart(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	argv, env, err := Wrap(self, Spec{Mode: Off}, []string{"/no/such/agent", "--flag"})
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), env)
	out, _ := cmd.CombinedOutput()
	why := NotStarted(cmd.ProcessState.ExitCode(), out)
	if why == nil || !strings.Contains(why.Error(), "/no/such/agent: no such file or directory") {
		t.Errorf("exit %d, %q: %v", cmd.ProcessState.ExitCode(), out, why)
	}
	if NotStarted(127, []byte("sh: 1: agent: not found\n")) != nil {
		t.Error("an agent's own 127 taken for the trampoline's")
	}
}

// TestConnectOnlyToPorts: with Ports, the agent connects to those TCP
// ports and to no other.
func TestConnectOnlyToPorts(t *testing.T) {
	needsABI(t, NetABI, "confining TCP")
	var ports []int
	for range 2 {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		ports = append(ports, ln.Addr().(*net.TCPAddr).Port)
	}
	connect := func(port int) string {
		return `(exec 3<>/dev/tcp/127.0.0.1/` + strconv.Itoa(port) + `) 2>/dev/null && echo ` + strconv.Itoa(port) + `-connected || echo ` + strconv.Itoa(port) + `-refused; `
	}
	self, _ := os.Executable()
	argv, env, err := Wrap(self, Spec{Mode: Workspace, Write: []string{"/dev/null"}, Ports: ports[:1]}, []string{"bash", "-c", connect(ports[0]) + connect(ports[1])})
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), env)
	out, _ := cmd.CombinedOutput()
	for _, want := range []string{strconv.Itoa(ports[0]) + "-connected", strconv.Itoa(ports[1]) + "-refused"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("confined to port %d: %q lacks %s", ports[0], out, want)
		}
	}
}

// TestExpand: a declared path takes its variables, the default of one
// unset or empty, and the home directory; one whose variable is not set
// and has no default is left out (not "/").
func TestExpand(t *testing.T) {
	home, _ := os.UserHomeDir()
	t.Setenv("ROODA_TEST_SET", "/set")
	t.Setenv("ROODA_TEST_EMPTY", "")
	for path, want := range map[string]string{
		"${ROODA_TEST_SET:-~/.a}/b":   "/set/b",
		"$ROODA_TEST_UNSET/":          "",
		"${ROODA_TEST_EMPTY}/c":       "",
		"${ROODA_TEST_EMPTY:-~/.a}/b": filepath.Join(home, ".a/b"),
		"${ROODA_TEST_UNSET:-/x}":     "/x",
		"$ROODA_TEST_SET/c":           "/set/c",
		"~/.gemini":                   filepath.Join(home, ".gemini"),
		"~":                           home,
		"/dev/null":                   "/dev/null",
	} {
		// A variable not set, without a default, leaves the path out.
		if got, ok := Expand(path); ok != (want != "") || ok && got != want {
			t.Errorf("Expand(%q) = %q, %v; want %q", path, got, ok, want)
		}
	}
}
