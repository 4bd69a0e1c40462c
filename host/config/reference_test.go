package config

import (
	"os"
	"path/filepath"
	"testing"

	"rooda/internal/golden"
)

// TestCommittedSettingsReference: docs/settings.md is what the table of
// settings says today (go test ./host/config -update rewrites it).
func TestCommittedSettingsReference(t *testing.T) {
	file := filepath.Join("..", "..", "docs", "settings.md")
	got := Reference()
	if golden.Updating() {
		if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if want, err := os.ReadFile(file); err != nil || string(want) != got {
		t.Errorf("%s is out of date (%v): run go test ./host/config -update", file, err)
	}
}
