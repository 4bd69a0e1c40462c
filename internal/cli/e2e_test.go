package cli

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

var (
	buildOnce sync.Once
	binDir    string
	buildErr  error
)

// TestMain removes the binaries the end-to-end tests built.
func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// binaries builds the real rooda executable and the fake agent once per test
// run and returns the directory that holds them.
func binaries(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the binaries")
	}
	buildOnce.Do(func() {
		binDir, buildErr = os.MkdirTemp("", "rooda-e2e")
		if buildErr != nil {
			return
		}
		// rooda-sandbox beside rooda, as installed: the agents start
		// through it (TestTrampolineFallback runs rooda without it).
		// rooda-full too: script fmt, script lint and a traced run are
		// handed over to it, as installed (TestWithoutRoodaFull runs
		// rooda without it).
		for name, pkg := range map[string]string{"rooda": "rooda/cmd/rooda", "rooda-sandbox": "rooda/cmd/rooda-sandbox", "rooda-full": "rooda/cmd/rooda-full", "fakeagent": "rooda/internal/fakeagent", "peakrss": "rooda/internal/peakrss"} {
			out, err := exec.Command("go", "build", "-o", filepath.Join(binDir, name), pkg).CombinedOutput()
			if err != nil {
				buildErr = errors.New(string(out))
				return
			}
		}
	})
	if buildErr != nil {
		t.Fatalf("building: %v", buildErr)
	}
	return binDir
}

// binary is the built rooda executable.
func binary(t *testing.T) string { return filepath.Join(binaries(t), "rooda") }

// exe runs the built binary and returns stdout, stderr and the exit code.
func exe(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(binary(t), args...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	code := 0
	var exitErr *exec.ExitError
	if errors.As(err, &exitErr) {
		code = exitErr.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errOut.String(), code
}

func TestBinary(t *testing.T) {
	stdout, stderr, code := exe(t, "fragments", "observe")
	if code != 0 || stderr != "" || strings.Count(stdout, "\n") != 13 {
		t.Errorf("fragments observe: exit %d, stderr %q, stdout:\n%s", code, stderr, stdout)
	}
	stdout, stderr, code = exe(t, "fragments", "nothing")
	if code != 1 || stdout != "" || !strings.HasPrefix(stderr, "Error: unknown phase \"nothing\"") {
		t.Errorf("bad phase: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	stdout, _, code = exe(t, "version")
	if code != 0 || !strings.HasPrefix(stdout, "Version: ") {
		t.Errorf("version: exit %d, stdout %q", code, stdout)
	}

	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "rooda-config.yml"), []byte("loop:\n  log_level: loud\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	list := exec.Command(binary(t), "list")
	list.Env = append(os.Environ(), "ROODA_CONFIG_HOME="+dir+"/none")
	out, err := list.Output()
	if err != nil || strings.Count(string(out), "\n") != 16 {
		t.Errorf("list: %v\n%s", err, out)
	}
	list = exec.Command(binary(t), "list")
	list.Dir = dir
	out, err = list.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "Error: ./rooda-config.yml:2:14: loop.log_level must be one of") {
		t.Errorf("list with a bad workspace config: %v\n%s", err, out)
	}
}
