package main

import (
	"regexp"
	"strings"
	"testing"
)

// Issue 41: rooda says what it does. Each test here is one of its
// numbered items, run as a user would meet it.

// TestMaxDurationBoundsEveryRun: --max-duration is the run's time cap for
// a YAML or built-in run too, not only a script's: the run ends, status
// budget, exit 2. run's help shows it among the budgets, and the flags
// only a script procedure takes under a heading of their own.
func TestMaxDurationBoundsEveryRun(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, step{"output": "working", "delay": "1s"})
	o := w.run("build", "-n", "20", "--max-duration", "2500ms")
	o.expect(t, 2, "the run reached its budget of ", " of run time (--max-duration)")
	if status := w.runStatus(); status != "budget" {
		t.Errorf("run.json's status is %q, want budget", status)
	}
	help := w.rooda("build", "--help").stdout
	budgets := regexp.MustCompile(`(?s)Budgets\n(.*?)\n\n`).FindStringSubmatch(help)
	scriptOnly := regexp.MustCompile(`(?s)` + scriptOnlyCategory + `\n(.*?)\n\n`).FindStringSubmatch(help)
	switch {
	case budgets == nil || !strings.Contains(budgets[1], "--max-duration"):
		t.Errorf("build --help does not list --max-duration among the budgets:\n%s", help)
	case scriptOnly == nil || !strings.Contains(scriptOnly[1], "--max-steps") || !strings.Contains(scriptOnly[1], "--lib"):
		t.Errorf("build --help does not set the script procedures' flags apart:\n%s", help)
	case strings.Contains(scriptOnly[1], "--max-duration"):
		t.Errorf("build --help shows --max-duration as a script's alone:\n%s", help)
	}
}
