package runlog

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestReadMetaInTodaysWords: an older record's outcomes are read in
// today's words; a record written in them is read as it is, "success"
// included.
func TestReadMetaInTodaysWords(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		written Meta
		want    string
	}{
		{Meta{Outcome: "success"}, "continue"},
		{Meta{Outcome: "SUCCESS"}, "success"},
		{Meta{Outcome: "failure"}, "failure"},
		{Meta{Outcome: "success", OutcomeNames: OutcomeNames2}, "success"},
		{Meta{Outcome: "continue", OutcomeNames: OutcomeNames2}, "continue"},
	} {
		if err := writeJSON(filepath.Join(iterationDir(dir, 1), "meta.json"), tc.written); err != nil {
			t.Fatal(err)
		}
		m, err := ReadMeta(dir, 1)
		if err != nil || m.Outcome != tc.want {
			t.Errorf("%+v read as %q (%v), want %q", tc.written, m.Outcome, err, tc.want)
		}
	}
}

// TestRecordsAreTheIterationsDirectories: Records names the directories
// named as iterations' records are, and no other.
func TestRecordsAreTheIterationsDirectories(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"0001", "0042", "9999", "12345", "00007", "0000", "001", "+001", "-001", "0x01", "abcd", "012345", "0003.txt"} {
		if err := os.MkdirAll(filepath.Join(dir, "iterations", name), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "iterations", "0005"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := Records(dir)
	slices.Sort(got)
	if want := []int{1, 42, 9999, 12345}; err != nil || !slices.Equal(got, want) {
		t.Fatalf("Records = %v, %v; want %v", got, err, want)
	}
}
