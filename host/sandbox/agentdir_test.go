package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestSweepRemovesOnlyTheDeads: Sweep removes an agent's directory
// whose rooda let its lock go without removing it (a rooda killed), and
// keeps one whose lock is held (a live rooda's) and one made before the
// lock (no empty file: whether its rooda lives is not known); Remove
// leaves nothing.
func TestSweepRemovesOnlyTheDeads(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	live, err := NewAgentDir()
	must(t, err)
	dead, err := NewAgentDir()
	must(t, err)
	dead.lock.Close() // its rooda was killed
	old := filepath.Join(os.TempDir(), agentPrefix+"old")
	must(t, os.Mkdir(old, 0o700))
	if !strings.HasPrefix(filepath.Base(live.Dir), agentPrefix) || !isDir(live.TMPDIR()) {
		t.Fatalf("the agent's directory: %s", live.Dir)
	}
	if removed := Sweep(); !slices.Equal(removed, []string{dead.Dir}) {
		t.Errorf("swept %q, want %q", removed, dead.Dir)
	}
	if isDir(dead.Dir) || !isDir(live.Dir) || !isDir(old) {
		t.Errorf("after the sweep: dead %v, live %v, old %v", isDir(dead.Dir), isDir(live.Dir), isDir(old))
	}
	live.Remove()
	if isDir(live.Dir) {
		t.Error("Remove left the directory")
	}
}

func isDir(path string) bool {
	info, err := os.Stat(path)
	return err == nil && info.IsDir()
}
