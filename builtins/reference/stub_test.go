package reference_test

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"rooda/builtins/reference"
)

// mypy runs Debian's mypy (internal/testdeps/install.sh installs it),
// strict, over files with the stubs of the reference written to a
// directory on MYPYPATH, and returns its output and whether it passed.
// Without mypy the test is skipped, saying NOT TESTED.
func mypy(t *testing.T, files ...string) (string, bool) {
	t.Helper()
	bin, err := exec.LookPath("mypy")
	if err != nil {
		t.Skip("NOT TESTED: mypy is not installed (bash internal/testdeps/install.sh installs it)")
	}
	stubs := t.TempDir()
	if _, err := reference.WriteStubs(stubs, entries(t), nil); err != nil {
		t.Fatal(err)
	}
	for i, f := range files {
		if !filepath.IsAbs(f) {
			files[i] = filepath.Join(stubs, f)
		}
	}
	cmd := exec.Command(bin, append([]string{"--strict", "--cache-dir", t.TempDir(), "--no-error-summary"}, files...)...)
	cmd.Env = append(os.Environ(), "MYPYPATH="+stubs)
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatal(err)
	}
	return string(out), err == nil
}

// sample is a file of testdata/stub, by its absolute path.
func sample(t *testing.T, name string) string {
	path, err := filepath.Abs(filepath.Join("testdata", "stub", name))
	if err != nil {
		t.Fatal(err)
	}
	return path
}

// TestStubPassesMypyStrict: every file `rooda script stub` writes is a
// stub that mypy --strict accepts.
func TestStubPassesMypyStrict(t *testing.T) {
	var files []string
	stubs, err := reference.StubFiles(entries(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	for name := range stubs {
		files = append(files, name)
	}
	if out, ok := mypy(t, files...); !ok {
		t.Errorf("mypy --strict rejects the stubs:\n%s", out)
	}
}

// TestStubTypesAScriptsCalls: a procedure's calls written as Python,
// testdata/stub/procedure.py, pass mypy --strict against the stubs, and
// the mistakes of testdata/stub/mistakes.py (a wrong keyword, a wrong
// type, a misspelt field) each fail it where they are: a stub that
// declared a signature wrong, or too loosely, fails one or the other.
func TestStubTypesAScriptsCalls(t *testing.T) {
	if out, ok := mypy(t, sample(t, "procedure.py")); !ok {
		t.Errorf("mypy --strict rejects a procedure's calls:\n%s", out)
	}
	mistakes := sample(t, "mistakes.py")
	wants := wantedErrors(t, mistakes)
	out, ok := mypy(t, mistakes)
	if ok {
		t.Fatalf("mypy --strict accepts every mistake:\n%s", out)
	}
	got := map[int][]string{}
	for _, m := range regexp.MustCompile(`(?m)^[^\n]*mistakes\.py:(\d+): error: (.*)$`).FindAllStringSubmatch(out, -1) {
		var line int
		fmt.Sscan(m[1], &line)
		got[line] = append(got[line], m[2])
	}
	for line, want := range wants {
		if !strings.Contains(strings.Join(got[line], "\n"), want) {
			t.Errorf("mistakes.py:%d: mypy does not say %q:\n%s", line, want, out)
		}
	}
	for line := range got {
		if _, ok := wants[line]; !ok {
			t.Errorf("mistakes.py:%d: an error no mistake wants:\n%s", line, out)
		}
	}
}

// wantedErrors are the errors a file's lines want, by line number: what
// follows "# wants: ".
func wantedErrors(t *testing.T, path string) map[int]string {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	wants := map[int]string{}
	s := bufio.NewScanner(f)
	for line := 1; s.Scan(); line++ {
		if _, want, ok := strings.Cut(s.Text(), "# wants: "); ok {
			wants[line] = want
		}
	}
	if len(wants) == 0 {
		t.Fatalf("%s wants no error", path)
	}
	return wants
}
