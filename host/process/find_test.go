package process

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFind(t *testing.T) {
	dir := t.TempDir()
	exe := filepath.Join(dir, "my-agent")
	plain := filepath.Join(dir, "notes.txt")
	os.WriteFile(exe, []byte("#!/bin/sh\n"), 0o755)
	os.WriteFile(plain, []byte("x"), 0o644)
	t.Setenv("PATH", dir+":/nonexistent")
	if got, err := Find("my-agent"); err != nil || got != exe {
		t.Errorf("in PATH: %q, %v", got, err)
	}
	if got, err := Find(exe); err != nil || got != exe {
		t.Errorf("by path: %q, %v", got, err)
	}
	for name, want := range map[string]string{
		"nonexistent-cli":       "AI command binary not found: nonexistent-cli\nSearched PATH: " + dir + ":/nonexistent",
		plain:                   "AI command is not executable: " + plain,
		filepath.Join(dir, "x"): "AI command binary not found: " + filepath.Join(dir, "x"),
	} {
		if _, err := Find(name); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", name, err, want)
		}
	}
}
