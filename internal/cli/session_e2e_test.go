package cli

import (
	"encoding/json"
	"testing"
)

// TestScriptSetupFailureIsRecorded: a script run's record starts before
// its libraries are found, so a run that fails there is recorded as an
// error, with the exit code it ends with.
func TestScriptSetupFailureIsRecorded(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	w.write("a.star", "print('never')\n")
	w.rooda("script", "run", "a.star", "--lib", "bad").expect(t, 1)
	if ids := runIDs(t, w); len(ids) != 1 {
		t.Fatalf("runs recorded: %v", ids)
	}
	o := w.rooda("runs", "show", "last", "--json")
	var run struct {
		Status   string `json:"status"`
		ExitCode *int   `json:"exit_code"`
	}
	if err := json.Unmarshal([]byte(o.stdout), &run); err != nil || run.Status != "error" || run.ExitCode == nil || *run.ExitCode != 1 {
		t.Errorf("run.json %+v, %v\n%s%s", run, err, o.stdout, o.stderr)
	}
}
