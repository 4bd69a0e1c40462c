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
