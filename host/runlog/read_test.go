package runlog

import (
	"path/filepath"
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
