package cli

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"

	"rooda/fragments"
	"rooda/internal/golden"
)

// rooda runs the CLI in-process.
func rooda(args ...string) (stdout, stderr string, code int) {
	var out, errOut bytes.Buffer
	code = run(context.Background(), append([]string{"rooda"}, args...), &out, &errOut)
	return out.String(), errOut.String(), code
}

func TestFragmentsListsEveryPhaseInCatalogueOrder(t *testing.T) {
	stdout, stderr, code := rooda("fragments")
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	var want []string
	for _, phase := range []string{"observe", "orient", "decide", "act"} {
		for _, name := range fragments.Names(phase) {
			want = append(want, "builtin:fragments/"+phase+"/"+name)
		}
	}
	if got := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n"); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", stdout, strings.Join(want, "\n"))
	}
}

func TestFragmentsObserveListsTheSeedFragments(t *testing.T) {
	stdout, _, code := rooda("fragments", "observe")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	golden.Check(t, "fragments_observe", stdout)
	for _, name := range []string{"read_agents_md", "scan_repo_structure", "detect_build_system", "detect_work_tracking",
		"verify_commands", "query_work_tracking", "read_specs", "read_impl", "read_task_input", "read_draft_plan",
		"read_task_details", "run_tests", "run_lints"} {
		if !strings.Contains(stdout, "builtin:fragments/observe/"+name+".md\n") {
			t.Errorf("missing %s", name)
		}
	}
}

func TestFlagPositionDoesNotMatter(t *testing.T) {
	before, _, c1 := rooda("fragments", "--long", "decide")
	after, _, c2 := rooda("fragments", "decide", "-l")
	if c1 != 0 || c2 != 0 {
		t.Fatalf("exit codes %d %d", c1, c2)
	}
	if before != after {
		t.Errorf("flag before and after the argument differ:\n%s\n---\n%s", before, after)
	}
	if !strings.Contains(after, "builtin:fragments/decide/check_if_blocked.md\tCheck If Blocked\n") {
		t.Errorf("--long after the argument was not applied:\n%s", after)
	}
	if dash, _, _ := rooda("fragments", "--", "-l"); dash != "" {
		t.Errorf("after --, -l must be an argument, not a flag: %q", dash)
	}
}

func TestErrors(t *testing.T) {
	tests := []struct {
		name string
		args []string
	}{
		{"unknown_phase", []string{"fragments", "obsrve"}},
		{"unknown_phase_far", []string{"fragments", "plan"}},
		{"too_many_phases", []string{"fragments", "observe", "act"}},
		{"unknown_command", []string{"fragmnts"}},
		{"unknown_flag", []string{"fragments", "observe", "--bogus"}},
		{"dash_dash_argument", []string{"fragments", "--", "-l"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			stdout, stderr, code := rooda(tc.args...)
			if code != 1 {
				t.Errorf("exit %d, want 1", code)
			}
			if stdout != "" {
				t.Errorf("an error wrote to stdout: %q", stdout)
			}
			if !strings.HasPrefix(stderr, "Error: ") {
				t.Errorf("stderr does not start with Error: %q", stderr)
			}
			golden.Check(t, "error_"+tc.name, stderr)
		})
	}
}

func TestHelpHasExamples(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"fragments", "--help"}, {"help", "fragments"}, {"version", "-h"}} {
		stdout, stderr, code := rooda(args...)
		if code != 0 || stderr != "" || !strings.Contains(stdout, "Examples:\n") {
			t.Errorf("rooda %s: exit %d, stderr %q, stdout:\n%s", strings.Join(args, " "), code, stderr, stdout)
		}
	}
	stdout, _, _ := rooda()
	if !strings.Contains(stdout, "USAGE:") {
		t.Errorf("rooda alone should show help:\n%s", stdout)
	}
}

// writeCounter counts the writes it is given.
type writeCounter struct{ writes int }

func (w *writeCounter) Write(p []byte) (int, error) {
	w.writes++
	return len(p), nil
}

// TestHelpIsWrittenWhole: urfave/cli's tabwriter writes each cell with a
// write of its own; rooda's help reaches its stdout in one, as a pager
// reading the pipe would be woken once.
func TestHelpIsWrittenWhole(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"run", "--help"}, {"help", "fragments"}} {
		var stdout writeCounter
		if code := run(context.Background(), append([]string{"rooda"}, args...), &stdout, io.Discard); code != 0 || stdout.writes != 1 {
			t.Errorf("rooda %s: exit %d, %d writes to stdout, want 1", strings.Join(args, " "), code, stdout.writes)
		}
	}
}

func TestVersion(t *testing.T) {
	stdout, stderr, code := rooda("version")
	lines := strings.Split(stdout, "\n")
	if code != 0 || stderr != "" || len(lines) != 4 ||
		!strings.HasPrefix(lines[0], "Version: ") || !strings.HasPrefix(lines[1], "Commit:  ") || !strings.HasPrefix(lines[2], "Built:   ") {
		t.Errorf("exit %d, stderr %q, stdout %q", code, stderr, stdout)
	}
	version = "v9.9.9"
	defer func() { version = "" }()
	if stdout, _, _ := rooda("version"); !strings.HasPrefix(stdout, "Version: v9.9.9\n") {
		t.Errorf("the linker-set version is not shown: %q", stdout)
	}
}
