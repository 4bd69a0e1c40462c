package host

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"go.starlark.net/starlark"
)

// Skip ends a script test as skipped (skip("reason")).
type Skip struct{ Reason string }

func (s *Skip) Error() string { return "skipped: " + s.Reason }

// TestOptions configure `rooda script test`.
type TestOptions struct {
	// Run is what every test's runtime is made from; its Predeclared must
	// hold the test builtins (assert, fake_agent, skip).
	Run Options
	// Filter, when set, runs only the tests whose names match.
	Filter *regexp.Regexp
	// Verbose shows every test's output, not only a failed one's.
	Verbose bool
	// Out receives the report.
	Out io.Writer
}

// TestSummary counts what ran.
type TestSummary struct{ Passed, Failed, Skipped int }

// String is the closing line: "3 passed, 1 failed", ", 2 skipped" if any.
func (s TestSummary) String() string {
	line := fmt.Sprintf("%d passed, %d failed", s.Passed, s.Failed)
	if s.Skipped > 0 {
		line += fmt.Sprintf(", %d skipped", s.Skipped)
	}
	return line
}

// RunTests finds the *_test.star files under paths (files or
// directories) and runs each top-level test_* function in a runtime of
// its own, in a temporary working directory of its own (opts.Run.Attach
// gives each its session: a fixed clock, fake agents only): one line
// per test, the details of each failure, then the closing line.
func RunTests(ctx context.Context, paths []string, opts TestOptions) (TestSummary, error) {
	files, err := scriptsUnder(paths, "_test.star")
	if err != nil {
		return TestSummary{}, err
	}
	if opts.Run.WorkDir == "" {
		// Paths are shown from where rooda was started, while each test
		// runs in a directory of its own.
		if opts.Run.WorkDir, err = os.Getwd(); err != nil {
			return TestSummary{}, err
		}
	}
	var sum TestSummary
	for _, file := range files {
		if err := runTestFile(ctx, file, opts, &sum); err != nil {
			return sum, err
		}
	}
	if sum == (TestSummary{}) {
		return sum, fmt.Errorf("no tests found in %s (test_* functions in *_test.star files)", strings.Join(paths, " "))
	}
	fmt.Fprintln(opts.Out, sum)
	return sum, nil
}

// runTestFile runs the tests of one file.
func runTestFile(ctx context.Context, file string, opts TestOptions, sum *TestSummary) error {
	abs, err := filepath.Abs(file)
	if err != nil {
		return err
	}
	var names []testFunc
	err = inTempDir(func() error {
		names, err = testNames(ctx, abs, opts)
		return err
	})
	if err != nil {
		sum.Failed++
		fmt.Fprintf(opts.Out, "FAIL %s\n%s\n", file, indentLines(err.Error()))
		return nil
	}
	for _, t := range names {
		if ctx.Err() != nil {
			return StopCause(ctx)
		}
		if opts.Filter != nil && !opts.Filter.MatchString(t.name) {
			continue
		}
		if err := inTempDir(func() error { return runTest(ctx, abs, t, opts, sum) }); err != nil {
			return err
		}
	}
	return nil
}

// inTempDir runs fn in a new, empty working directory, removed after:
// what a test's script writes stays out of the workspace.
func inTempDir(fn func() error) error {
	dir, err := os.MkdirTemp("", "rooda-script-test")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	back, err := os.Getwd()
	if err != nil {
		return err
	}
	if err := os.Chdir(dir); err != nil {
		return err
	}
	defer os.Chdir(back)
	return fn()
}

type testFunc struct {
	name string
	pos  string // "file:line", as the report shows it
	line int32
}

// testNames loads the file once to list its test_* functions, in the
// order they are written.
func testNames(ctx context.Context, abs string, opts TestOptions) ([]testFunc, error) {
	r, globals, err := loadTestFile(ctx, abs, opts.Run, io.Discard)
	if err != nil {
		return nil, err
	}
	var tests []testFunc
	for name, v := range globals {
		fn, ok := v.(*starlark.Function)
		if !ok || !strings.HasPrefix(name, "test_") {
			continue
		}
		line := fn.Position().Line
		tests = append(tests, testFunc{name, fmt.Sprintf("%s:%d", r.resolver.display(abs), line), line})
	}
	sort.Slice(tests, func(i, j int) bool { return tests[i].line < tests[j].line })
	return tests, nil
}

// loadTestFile runs a test file's top level in a new runtime.
func loadTestFile(ctx context.Context, abs string, opts Options, out io.Writer) (*Runtime, starlark.StringDict, error) {
	opts.Stderr = out
	r, err := New(opts)
	if err != nil {
		return nil, nil, err
	}
	root, err := r.resolver.root(abs)
	if err != nil {
		return nil, nil, err
	}
	r.thread.SetLocal(contextKey, ctx)
	globals, err := r.exec(root)
	if err != nil {
		return nil, nil, newError(err, r.hints())
	}
	return r, globals, nil
}

// runTest runs one test function in a fresh runtime, and reports it.
func runTest(ctx context.Context, abs string, t testFunc, opts TestOptions, sum *TestSummary) error {
	var out bytes.Buffer
	err := callTest(ctx, abs, t.name, opts.Run, &out)
	var skip *Skip
	switch {
	case ctx.Err() != nil:
		return StopCause(ctx)
	case errors.As(err, &skip):
		sum.Skipped++
		fmt.Fprintf(opts.Out, "skip %s %s: %s\n", t.pos, t.name, skip.Reason)
	case err != nil:
		sum.Failed++
		fmt.Fprintf(opts.Out, "FAIL %s %s\n%s\n", t.pos, t.name, indentLines(err.Error()))
		writeOutput(opts.Out, out.String())
	default:
		sum.Passed++
		fmt.Fprintf(opts.Out, "ok   %s %s\n", t.pos, t.name)
		if opts.Verbose {
			writeOutput(opts.Out, out.String())
		}
	}
	return nil
}

// callTest loads the file anew and calls one test function.
func callTest(ctx context.Context, abs, name string, opts Options, out io.Writer) error {
	r, globals, err := loadTestFile(ctx, abs, opts, out)
	if err != nil {
		return err
	}
	stop := context.AfterFunc(ctx, func() { r.thread.Cancel("interrupted") })
	defer stop()
	if _, err := starlark.Call(r.thread, globals[name], nil, nil); err != nil {
		var skip *Skip
		if errors.As(err, &skip) {
			return skip
		}
		return newError(err, r.hints())
	}
	return nil
}

func writeOutput(w io.Writer, out string) {
	if out = strings.TrimRight(out, "\n"); out != "" {
		fmt.Fprintf(w, "    output:\n%s\n", indentLines(indentLines(out)))
	}
}

func indentLines(s string) string {
	return "    " + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n    ")
}
