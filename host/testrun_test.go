package host_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"rooda/host"
	"rooda/internal/hosttest"
)

func runTests(t *testing.T, f *hosttest.Fixture, opts host.TestOptions, paths ...string) (host.TestSummary, string, error) {
	t.Helper()
	f.Test = true
	var out strings.Builder
	opts.Run, opts.Out = f.Options(), &out
	sum, err := host.RunTests(context.Background(), paths, opts)
	return sum, out.String(), err
}

// TestRunTests: each kind of result, its line, and the closing line; a
// test's files go to a directory of its own.
func TestRunTests(t *testing.T) {
	f := hosttest.New(t, map[string]string{
		"a_test.star": `
run("touch top_level_ran")
def test_pass():
    run("touch written_by_test")
def test_fail():
    print("shown when it fails")
    assert.true(1 > 2, "order")
def test_skip():
    skip("later")
def helper():
    pass
`,
		"sub/broken_test.star": "def test_x(:\n",
		"notes.star":           "def test_not_a_test_file():\n    fail('ran')\n",
	})
	sum, out, err := runTests(t, f, host.TestOptions{}, ".")
	if err != nil {
		t.Fatal(err)
	}
	want := "ok   a_test.star:3 test_pass\n" +
		"FAIL a_test.star:5 test_fail\n    Traceback (most recent call last):\n      a_test.star:7:16: in test_fail\n    Error in assert.true: order: got False, want a true value\n    output:\n        shown when it fails\n" +
		"skip a_test.star:8 test_skip: later\n" +
		"FAIL sub/broken_test.star\n    Error: sub/broken_test.star:1:13: got ':', want ')'\n" +
		"1 passed, 2 failed, 1 skipped\n"
	if out != want || sum != (host.TestSummary{Passed: 1, Failed: 2, Skipped: 1}) {
		t.Errorf("got:\n%s\nwant:\n%s", out, want)
	}
	for _, name := range []string{"top_level_ran", "written_by_test"} {
		if _, err := os.Stat(filepath.Join(f.Dir, name)); err == nil {
			t.Errorf("%s was written in the workspace", name)
		}
	}

	_, out, _ = runTests(t, f, host.TestOptions{Filter: regexp.MustCompile("pass"), Verbose: true}, "a_test.star")
	if !strings.HasPrefix(out, "ok   a_test.star:3 test_pass\n") || !strings.HasSuffix(out, "1 passed, 0 failed\n") {
		t.Errorf("-run pass:\n%s", out)
	}
	if _, _, err := runTests(t, f, host.TestOptions{Filter: regexp.MustCompile("nothing")}, "a_test.star"); err == nil || !strings.Contains(err.Error(), "no tests found") {
		t.Errorf("no test ran: %v", err)
	}
}

// TestRunTestsStopsAtAnInterrupt: no test runs once the run is
// interrupted, and the interrupt is the result (exit 130).
func TestRunTestsStopsAtAnInterrupt(t *testing.T) {
	f := hosttest.New(t, map[string]string{"a_test.star": "def test_one():\n    pass\n"})
	f.Test = true
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out strings.Builder
	_, err := host.RunTests(ctx, []string{"."}, host.TestOptions{Run: f.Options(), Out: &out})
	var coder interface{ ExitCode() int }
	if err == nil || !errors.As(err, &coder) || coder.ExitCode() != 130 || strings.Contains(out.String(), "ok ") {
		t.Errorf("error %v, output %q", err, out.String())
	}
}
