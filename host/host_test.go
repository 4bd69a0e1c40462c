package host_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"rooda/host"
	"rooda/host/config"
	"rooda/internal/golden"
	"rooda/internal/hosttest"
)

func newFixture(t *testing.T, files map[string]string) *hosttest.Fixture {
	f := hosttest.New(t, files)
	f.Opts.Stdlib = fstest.MapFS{"util.star": {Data: []byte("def double(x):\n    return 2 * x\n")}}
	f.Opts.Libraries = map[string]string{"team": filepath.Join(f.Dir, "team")}
	return f
}

// TestErrorsShowWhereAndHow: each kind of error a script can have, as the
// user reads it.
func TestErrorsShowWhereAndHow(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files map[string]string
	}{
		{"syntax", map[string]string{"main.star": "x = 1\ny = (2\nprint(x)\n"}},
		{"resolve", map[string]string{"main.star": "p = fragmnt(content = 'x')\nq = true\nprint(undefined_thing)\nr = round(2.5)\n"}},
		{"in_library", map[string]string{
			"main.star":     "load('lib/util.star', 'helper')\nhelper(0)\n",
			"lib/util.star": "def divide(n):\n    return 10 // n\n\ndef helper(n):\n    return divide(n)\n",
		}},
		{"load_error", map[string]string{
			"main.star":       "load('lib/broken.star', 'x')\n",
			"lib/broken.star": "x = (\n",
		}},
		{"cycle", map[string]string{
			"main.star": "load('a.star', 'a')\n",
			"a.star":    "load('b.star', 'b')\na = 1\n",
			"b.star":    "load('a.star', 'a')\nb = 2\n",
		}},
		{"frozen", map[string]string{
			"main.star": "load('lib.star', 'names')\nnames.append('three')\n",
			"lib.star":  "names = ['one', 'two']\n",
		}},
		{"builtin_args", map[string]string{"main.star": "fragment(content = 'x', patth = 'y')\n"}},
		{"missing_fragment", map[string]string{"main.star": "f = fragment('prompts/missing.md')\n"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, tc.files)
			err := f.Run("main.star")
			if err == nil {
				t.Fatal("no error")
			}
			golden.Check(t, "error_"+tc.name, strings.ReplaceAll(err.Error(), f.Dir, "$WORK")+"\n")
		})
	}
}

// TestModulesLoadOnce: two loads of one module, by different relative
// paths, run it once; its values are shared.
func TestModulesLoadOnce(t *testing.T) {
	f := newFixture(t, map[string]string{
		"main.star":       "load('lib/a.star', 'a')\nload('lib/b.star', 'b')\nprint(a, b)\n",
		"lib/a.star":      "load('shared.star', 'n')\na = n\n",
		"lib/b.star":      "load('../lib/shared.star', 'n')\nb = n\n",
		"lib/shared.star": "print('shared runs')\nn = 42\n",
	})
	if err := f.Run("main.star"); err != nil {
		t.Fatal(err)
	}
	if got := f.Stderr.String(); got != "shared runs\n42 42\n" {
		t.Errorf("printed %q", got)
	}
}

// TestLibraries: @rooda// from the embedded library, @team// from a
// configured directory, relative loads inside a library staying in it, and
// an unknown library named with the known ones.
func TestLibraries(t *testing.T) {
	f := newFixture(t, map[string]string{
		"main.star":         "load('@rooda//util.star', 'double')\nload('@team//tools/x.star', 'y')\nprint(double(y))\n",
		"team/tools/x.star": "load('../base.star', 'base')\ny = base + 1\n",
		"team/base.star":    "base = 20\n",
		"bad.star":          "load('@tema//x.star', 'x')\n",
	})
	if err := f.Run("main.star"); err != nil {
		t.Fatal(err)
	}
	if got := f.Stderr.String(); got != "42\n" {
		t.Errorf("printed %q", got)
	}
	err := f.Run("bad.star")
	if err == nil || !strings.Contains(err.Error(), "unknown library @tema (libraries: @rooda, @team)") || !strings.Contains(err.Error(), "did you mean @team?") {
		t.Errorf("unknown library: %v", err)
	}
}

// TestStepBudget: a runaway loop stops at the step budget with an error
// that names it and exits 2.
func TestStepBudget(t *testing.T) {
	f := newFixture(t, map[string]string{"main.star": "n = 0\nfor i in range(1000000000):\n    n += i\n"})
	f.Opts.MaxSteps = 10000
	err := f.Run("main.star")
	var coder interface{ ExitCode() int }
	if err == nil || !errors.As(err, &coder) || coder.ExitCode() != 2 {
		t.Fatalf("error %v", err)
	}
	golden.Check(t, "error_step_budget", err.Error()+"\n")
}

// TestCancelStopsStarlark: an ended context stops a script's own loop at
// once, as an interrupt (exit 130), well before its step budget.
func TestCancelStopsStarlark(t *testing.T) {
	f := newFixture(t, map[string]string{"main.star": "n = 0\nfor i in range(1000000000):\n    n += i\n"})
	f.Opts.MaxSteps = 1_000_000
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := f.Runtime().Run(ctx, "main.star")
	var coder interface{ ExitCode() int }
	if err == nil || !errors.As(err, &coder) || coder.ExitCode() != 130 {
		t.Fatalf("error %v", err)
	}
	if !strings.Contains(err.Error(), "cancelled: interrupted") || strings.Contains(err.Error(), "budget") {
		t.Errorf("not stopped by the cancellation:\n%v", err)
	}
}

// TestRootGoesThroughTheCache: a cycle back to the root script is found,
// and the root runs once.
func TestRootGoesThroughTheCache(t *testing.T) {
	f := newFixture(t, map[string]string{
		"main.star": "print('main runs')\nload('a.star', 'a')\n",
		"a.star":    "load('main.star', 'x')\na = 1\n",
	})
	err := f.Run("main.star")
	if err == nil || !strings.Contains(err.Error(), "load cycle: main.star → a.star → main.star") {
		t.Errorf("error %v", err)
	}
	if got := f.Stderr.String(); got != "main runs\n" {
		t.Errorf("printed %q", got)
	}
}

// TestErrorsAreCached: a module that fails is run once; a second load gets
// the same error without running it again.
func TestErrorsAreCached(t *testing.T) {
	f := newFixture(t, map[string]string{
		"main.star":   "load('a.star', 'a')\n",
		"a.star":      "load('bad.star', 'x')\na = 1\n",
		"b.star":      "load('bad.star', 'x')\n",
		"bad.star":    "print('bad runs')\nx = 1 // 0\n",
		"second.star": "load('b.star', 'b')\n",
	})
	r := f.Runtime()
	if err := r.Run(context.Background(), "main.star"); err == nil {
		t.Fatal("no error")
	}
	err := r.Run(context.Background(), "second.star")
	if err == nil || !strings.Contains(err.Error(), "floored division by zero") {
		t.Errorf("second load: %v", err)
	}
	if got := f.Stderr.String(); got != "bad runs\n" {
		t.Errorf("printed %q", got)
	}
}

// TestCheckRunsNothing: check reports a missing fragment, a bad load, a
// cycle and every undefined name, and runs no line.
func TestCheckRunsNothing(t *testing.T) {
	f := newFixture(t, map[string]string{
		"main.star":      "print('ran!')\nload('lib.star', 'x', 'nothere', w = '_private')\nload('nowhere.star', 'y')\nf = fragment('prompts/missing.md')\np = compose('p', act = ['prompts/act.md', 'builtin:fragments/act/emit_signal.md'])\nz = fragmnt\n",
		"lib.star":       "load('main.star', 'p')\nx = 1\n_private = 2\n",
		"prompts/act.md": "Act.\n",
	})
	_, err := f.Runtime().Check("main.star")
	if err == nil {
		t.Fatal("no problems found")
	}
	if f.Stderr.Len() > 0 {
		t.Errorf("something ran: %q", f.Stderr.String())
	}
	golden.Check(t, "check", err.Error()+"\n")
}

// TestREPL: values printed, definitions and load() kept across inputs, an
// error reported without ending the session, iterate() a dry run.
func TestREPL(t *testing.T) {
	f := newFixture(t, map[string]string{"lib.star": "greeting = 'hello'\n"})
	f.DryRun = true
	var out strings.Builder
	in := strings.NewReader("x = 20 + 1\nx * 2\ndef f(n):\n    return n + 1\n\nf(x)\nload('lib.star', 'greeting')\ngreeting\nnope\nr = iterate(compose('p', act = [fragment(content = 'hi')]), agent = 'true')\nr.status\n")
	if err := f.Runtime().REPL(context.Background(), in, &out, true, nil); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, want := range []string{">>> >>> 42\n", "... ... >>> 22\n", ">>> \"hello\"\n", ">>> Error: <stdin>:1:1: undefined: nope (did you mean None?)\n", "\"dry-run\"\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("session lacks %q:\n%s", want, got)
		}
	}
	if !strings.Contains(f.Stdout.String(), "=== Dry-Run: p ===") {
		t.Errorf("no dry-run report:\n%s", f.Stdout.String())
	}
}

// TestREPLPiped: piped input runs a statement at a time, a blank line
// inside a def included: expressions' values to out, an error to stderr
// and on to the next statement, the failures counted at the end.
func TestREPLPiped(t *testing.T) {
	f := newFixture(t, nil)
	var out strings.Builder
	in := strings.NewReader("def f(n):\n    x = n + 1\n\n    return x * 2\nprint(f(1))\nf(2)\nx = 1 // 0\nf(3)\n")
	err := f.Runtime().REPL(context.Background(), in, &out, false, nil)
	if err == nil || err.Error() != "1 of the 5 statements of standard input failed" {
		t.Errorf("error %v", err)
	}
	if out.String() != "6\n8\n" {
		t.Errorf("values %q, want %q", out.String(), "6\n8\n")
	}
	if got := f.Stderr.String(); !strings.HasPrefix(got, "4\n") || !strings.Contains(got, "floored division by zero") {
		t.Errorf("stderr %q", got)
	}
}

// TestREPLInterrupted: a session waiting for input ends at an interrupt.
func TestREPLInterrupted(t *testing.T) {
	f := newFixture(t, nil)
	r, w, _ := os.Pipe()
	defer w.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out strings.Builder
	err := f.Runtime().REPL(ctx, r, &out, true, nil)
	var coder interface{ ExitCode() int }
	if err == nil || !errors.As(err, &coder) || coder.ExitCode() != 130 {
		t.Errorf("error %v", err)
	}
}

// TestPrintInAJSONLog: with --log-format json, print() is an event too,
// so stderr stays one JSON object per line.
func TestPrintInAJSONLog(t *testing.T) {
	f := newFixture(t, map[string]string{"main.star": "print('hello', 1)\n"})
	f.Flags = []config.Flag{{Name: "log-format", Value: "json"}}
	if err := f.Run("main.star"); err != nil {
		t.Fatal(err)
	}
	if got := f.Stderr.String(); !strings.Contains(got, `"event":"print","message":"hello 1","file":"main.star","line":1}`) {
		t.Errorf("stderr %q", got)
	}
}

// TestCheckOfACleanScriptParsesNoLibrary: the standard library's names,
// which hint where an undefined name is defined, are read (every module
// parsed) only for a script that has an undefined name, not by every
// check: `rooda script check` of a sound script starts and ends sooner.
func TestCheckOfACleanScriptParsesNoLibrary(t *testing.T) {
	f := newFixture(t, map[string]string{"main.star": "x = 1\n", "bad.star": "double(1)\n"})
	r := f.Runtime()
	if _, err := r.Check("main.star"); err != nil {
		t.Fatal(err)
	}
	if host.LibraryNamesRead(r) {
		t.Error("a clean check parsed the standard library for its hints")
	}
	if _, err := r.Check("bad.star"); err == nil || !strings.Contains(err.Error(), "@rooda//util.star defines it") {
		t.Errorf("an undefined name of the library has no hint: %v", err)
	}
}
