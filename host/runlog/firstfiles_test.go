package runlog

import (
	"os"
	"path/filepath"
	"testing"
)

// TestRunAsItAppearsResumes: a run's directory, as it first appears, is
// one a resume finds: a rooda killed before its first journal entry
// leaves a run cut short, not one that no resume finds (seen in
// TestResumeAfterKill, killed 15 ms in).
func TestRunAsItAppearsResumes(t *testing.T) {
	runs := t.TempDir()
	id := "20261128T000000.000000Z-build-0001"
	r := newRecorder(filepath.Join(runs, id), Run{ID: id, Status: "running", PID: os.Getpid()})
	if err := os.Mkdir(r.dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := r.firstFiles(r.dir); err != nil {
		t.Fatal(err)
	}
	if !CanResume(runs, id) {
		t.Errorf("a run as it first appears cannot be resumed: %v", entries(t, r.dir))
	}
}

func entries(t *testing.T, dir string) []string {
	t.Helper()
	list, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range list {
		names = append(names, e.Name())
	}
	return names
}
