package programs

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBeside: rooda runs the rooda-sandbox beside its executable only
// when no one but its owner (rooda's user or root) may change it.
func TestBeside(t *testing.T) {
	const name = "rooda-sandbox"
	dir := t.TempDir()
	self := filepath.Join(dir, "rooda")
	if _, err := Beside(self, name); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("none beside: %v, want fs.ErrNotExist", err)
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if got, err := Beside(self, name); err != nil || got != path {
		t.Errorf("mode 755: %q, %v; want %q", got, err, path)
	}
	for mode, why := range map[fs.FileMode]string{0o777: "written by others", 0o775: "written by others", 0o644: "not an executable"} {
		if err := os.Chmod(path, mode); err != nil {
			t.Fatal(err)
		}
		if got, err := Beside(self, name); err == nil || !strings.Contains(err.Error(), why) {
			t.Errorf("mode %v: %q, %v; want an error saying %q", mode, got, err, why)
		}
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(path, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := Beside(self, name); err == nil {
		t.Error("a directory taken for the trampoline")
	}
}

// TestBesideRefusesAnotherUsers: a rooda-sandbox that belongs to
// another user than rooda's (or root) is not run. It needs root, to give
// the file away.
func TestBesideRefusesAnotherUsers(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("SKIPPED: giving a file to another user needs root")
	}
	const name = "rooda-sandbox"
	dir := t.TempDir()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(path, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	if got, err := Beside(filepath.Join(dir, "rooda"), name); err == nil || !strings.Contains(err.Error(), "another user") {
		t.Errorf("another user's: %q, %v", got, err)
	}
}

// TestFindBesideThenOnPath: the program beside rooda comes first, then
// the one on PATH; one beside that Beside refuses is an error, not
// passed over; rooda itself under the name is never the program.
func TestFindBesideThenOnPath(t *testing.T) {
	const name = "rooda-full"
	dir, bin := t.TempDir(), t.TempDir()
	self := filepath.Join(dir, "rooda")
	t.Setenv("PATH", bin)
	if got, err := find(self, name); err == nil || err.Error() != "no rooda-full beside rooda ("+filepath.Join(dir, name)+") or on PATH" {
		t.Errorf("none: %q, %v", got, err)
	}
	onPath := executable(t, filepath.Join(bin, name))
	if got, err := find(self, name); err != nil || got != onPath {
		t.Errorf("on PATH only: %q, %v; want %q", got, err, onPath)
	}
	beside := executable(t, filepath.Join(dir, name))
	if got, err := find(self, name); err != nil || got != beside {
		t.Errorf("beside and on PATH: %q, %v; want %q", got, err, beside)
	}
	if err := os.Chmod(beside, 0o777); err != nil {
		t.Fatal(err)
	}
	if got, err := find(self, name); err == nil || !strings.Contains(err.Error(), "written by others") {
		t.Errorf("beside, refused: %q, %v; want the refusal", got, err)
	}
	if err := os.Chmod(beside, 0o755); err != nil {
		t.Fatal(err)
	}
	if got, err := find(beside, name); err == nil || !strings.Contains(err.Error(), "is this very program") {
		t.Errorf("itself: %q, %v; want an error", got, err)
	}
}

// executable writes a program at path.
func executable(t *testing.T, path string) string {
	t.Helper()
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}
