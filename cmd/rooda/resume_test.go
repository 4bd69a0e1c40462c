package main

import (
	"slices"
	"strings"
	"testing"
)

// TestResumedCommand: the command a run was started with, made to resume
// it. Its own --resume, --run-name and --force go (the resume gives its
// own); every other flag stays, as the resume must ask what the run
// asked; and what follows "--" is the script's, kept as it was even when
// it looks like rooda's flags.
func TestResumedCommand(t *testing.T) {
	for _, c := range []struct {
		command string
		force   bool
		want    string
	}{
		{"rooda run build -n 3", false, "rooda run build -n 3 --resume ID"},
		{"rooda run build -v -n 3", true, "rooda run build -v -n 3 --resume ID --force"},
		{"rooda run build --run-name night --force", false, "rooda run build --resume ID"},
		{"rooda run build --run-name=night --resume=old", false, "rooda run build --resume ID"},
		{"rooda run build --resume old -n 2", false, "rooda run build -n 2 --resume ID"},
		{"rooda script run s.star -- -d --force --run-name x", false, "rooda script run s.star --resume ID -- -d --force --run-name x"},
		{"rooda script run s.star --run-name n -- --resume y --", true, "rooda script run s.star --resume ID --force -- --resume y --"},
		{"rooda script run s.star --", false, "rooda script run s.star --resume ID --"},
	} {
		got := strings.Join(resumedCommand(strings.Fields(c.command), "ID", c.force), " ")
		if got != c.want {
			t.Errorf("%s (force %v):\n  got  %s\n  want %s", c.command, c.force, got, c.want)
		}
	}
}

// TestResumedCommandLeavesTheRecordAlone: the recorded command is the
// record's, read again by a later resume: making the resumed one must
// not change it.
func TestResumedCommandLeavesTheRecordAlone(t *testing.T) {
	command := []string{"rooda", "script", "run", "s.star", "--run-name", "n", "--", "a"}
	kept := slices.Clone(command)
	resumedCommand(command, "ID", true)
	if !slices.Equal(command, kept) {
		t.Errorf("the recorded command became %q", command)
	}
}
