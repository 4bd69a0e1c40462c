package cli

import (
	"slices"
	"strings"
	"testing"
)

// TestResumedCommand: the command a run was started with, made to resume
// it. Its own --resume, --run-name, --force and --as-left go (the resume gives its
// own); every other flag stays, as the resume must ask what the run
// asked; and what follows "--" is the script's, kept as it was even when
// it looks like rooda's flags.
func TestResumedCommand(t *testing.T) {
	for _, c := range []struct {
		command string
		own     []string
		want    string
	}{
		{"rooda run build -n 3", nil, "rooda run build -n 3 --resume ID"},
		{"rooda run build -v -n 3", []string{"--force"}, "rooda run build -v -n 3 --resume ID --force"},
		{"rooda run build --run-name night --force", nil, "rooda run build --resume ID"},
		{"rooda run build --as-left -n 1", []string{"--force", "--as-left"}, "rooda run build -n 1 --resume ID --force --as-left"},
		{"rooda run build --run-name=night --resume=old", nil, "rooda run build --resume ID"},
		{"rooda run build --resume old -n 2", nil, "rooda run build -n 2 --resume ID"},
		{"rooda script run s.star -- -d --force --run-name x", nil, "rooda script run s.star --resume ID -- -d --force --run-name x"},
		{"rooda script run s.star --run-name n -- --resume y --", []string{"--force"}, "rooda script run s.star --resume ID --force -- --resume y --"},
		{"rooda script run s.star --", nil, "rooda script run s.star --resume ID --"},
	} {
		got := strings.Join(resumedCommand(strings.Fields(c.command), "ID", c.own...), " ")
		if got != c.want {
			t.Errorf("%s (%v):\n  got  %s\n  want %s", c.command, c.own, got, c.want)
		}
	}
}

// TestResumedCommandLeavesTheRecordAlone: the recorded command is the
// record's, read again by a later resume: making the resumed one must
// not change it.
func TestResumedCommandLeavesTheRecordAlone(t *testing.T) {
	command := []string{"rooda", "script", "run", "s.star", "--run-name", "n", "--", "a"}
	kept := slices.Clone(command)
	resumedCommand(command, "ID", "--force")
	if !slices.Equal(command, kept) {
		t.Errorf("the recorded command became %q", command)
	}
}
