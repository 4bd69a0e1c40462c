package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestProcedureResumeReadsOnlyWhatItJudges: a YAML procedure's resume
// answers an iteration whose agent said no promise tag from the journal
// alone: its output, gone since, is not read, and the run ends as it
// would have. The output of one that signaled FAILURE is read to judge
// it again: gone, the resume stops there, naming it, as a script's does
// for any (TestResumeOfADamagedRecord).
func TestProcedureResumeReadsOnlyWhatItJudges(t *testing.T) {
	t.Parallel()
	d := newDurableYAML(t)
	d.killIn("Iteration 3/8 starting")
	runDir, _ := d.recorded()
	untagged := filepath.Join(runDir, "iterations", "0001", "output.txt")
	tagged := filepath.Join(runDir, "iterations", "0002", "output.txt")
	kept := readText(t, tagged)
	must(t, os.Remove(untagged))
	must(t, os.Remove(tagged))
	o := d.rooda("runs", "resume")
	if o.code != 1 || !strings.Contains(o.stderr, "cannot resume iteration 2 as it ended: .rooda/runs/"+filepath.Base(runDir)+"/iterations/0002/output.txt: no such file or directory") {
		t.Errorf("resume with a signaling iteration's output gone: exit %d\n%s", o.code, o.stderr)
	}
	must(t, os.WriteFile(tagged, []byte(kept), 0o644))
	o = d.rooda("runs", "resume")
	if _, e := d.recorded(); o.code != 0 || e.Status != "success" || e.Iterations != 6 {
		t.Errorf("resume with only an untagged iteration's output gone: exit %d, %s\n%s", o.code, e, o.stderr)
	}
}

// TestResumeAfterAPowerLossAsAnIterationEnded: a power loss between an
// iteration's end written to the journal and its output forced to the
// disk leaves the journal's last end with its output emptied (as ext4
// leaves a file whose bytes were not yet written back). The resume says
// so, runs that iteration again and goes on to the run's end; the one
// before it is replayed, not run again.
func TestResumeAfterAPowerLossAsAnIterationEnded(t *testing.T) {
	t.Parallel()
	d := newDurableYAML(t)
	d.killIn("Iteration 3/8 starting")
	runDir, _ := d.recorded()
	// Emptied as a power loss empties it: as old as its end. A truncate
	// alone makes it new, and one done more than 2 s after the end (a
	// loaded machine) reads as emptied by someone, which is refused.
	output := filepath.Join(runDir, "iterations", "0002", "output.txt")
	info, err := os.Stat(output)
	must(t, err)
	must(t, os.Truncate(output, 0))
	must(t, os.Chtimes(output, info.ModTime(), info.ModTime()))
	before := d.starts()
	o := d.rooda("runs", "resume")
	if !strings.Contains(o.stderr, "the files of iterations/0002 did not all reach the disk before the run stopped (a power loss as it ended): it runs again") {
		t.Errorf("the resume does not say the iteration runs again:\n%s", o.stderr)
	}
	after := d.starts()
	if after["script.json_1"] != before["script.json_1"] || after["script.json_2"] != before["script.json_2"]+1 {
		t.Errorf("agents started: %v after the resume, %v before: iteration 1 replayed, 2 run again", after, before)
	}
	if _, e := d.recorded(); o.code != 0 || e.Status != "success" {
		t.Errorf("resume: exit %d, %s\n%s", o.code, e, o.stderr)
	}
}
