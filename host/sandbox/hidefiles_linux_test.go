package sandbox

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestHideFilesAndSockets: a file and a pathname unix socket that the
// spec hides are, to the agent, an empty file it cannot write and a
// socket it cannot connect to (Landlock has no right for connecting to
// one); outside, both are as they were.
func TestHideFilesAndSockets(t *testing.T) {
	self, err := os.Executable()
	must(t, err)
	before := trampoline
	trampoline = self
	t.Cleanup(func() { trampoline = before })
	if CanHide() != nil {
		t.Skipf("SKIPPED: this system makes no mount namespace: %v", CanHide())
	}
	agent, err := NewAgentDir()
	must(t, err)
	defer agent.Remove()
	dir := t.TempDir()
	secret, sock := filepath.Join(dir, "secret"), filepath.Join(dir, "bus")
	must(t, os.WriteFile(secret, []byte("secret"), 0o644))
	ln, err := net.Listen("unix", sock)
	must(t, err)
	defer ln.Close()
	go func() {
		for c, err := ln.Accept(); err == nil; c, err = ln.Accept() {
			c.Close()
		}
	}()
	spec := Spec{Mode: Workspace, Write: []string{dir, "/dev/null"}, Empty: agent.Empty()}
	attr, err := spec.HideDirs([]string{secret, sock})
	must(t, err)
	line := `cat ` + secret + `; echo; (echo x > ` + secret + `) 2>/dev/null || echo write-refused; "$0" -test.run='^TestDialHelper$'`
	argv, env, err := Wrap(self, spec, []string{"sh", "-c", line, self})
	must(t, err)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env, cmd.SysProcAttr = append(os.Environ(), env, "ROODA_TEST_DIAL="+sock), &syscall.SysProcAttr{}
	attr(cmd.SysProcAttr)
	out, _ := cmd.CombinedOutput()
	for _, want := range []string{"write-refused", "dial-refused"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("%q lacks %s", out, want)
		}
	}
	if strings.Contains(string(out), "secret") {
		t.Errorf("the hidden file was read: %q", out)
	}
	if data, err := os.ReadFile(secret); string(data) != "secret" {
		t.Errorf("outside, the file: %q, %v", data, err)
	}
	if c, err := net.Dial("unix", sock); err != nil {
		t.Errorf("outside, the socket: %v", err)
	} else {
		c.Close()
	}
}
