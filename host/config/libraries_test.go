package config

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestLibraries: a library's directory is taken from the file that names
// it; a higher tier replaces a name; bad names and values are errors.
func TestLibraries(t *testing.T) {
	cfg, err := Decode([]byte("libraries:\n  team: ../shared/star\n  abs: /opt/lib\n"), Source{Workspace, "./rooda-config.yml"}, "/work/proj")
	if err != nil {
		t.Fatal(err)
	}
	if got := cfg.Libraries["team"]; got.V != filepath.Clean("/work/shared/star") || got.Line != 2 {
		t.Errorf("team: %+v", got)
	}
	if got := cfg.Libraries["abs"].V; got != "/opt/lib" {
		t.Errorf("abs: %q", got)
	}
	for _, bad := range []string{"libraries:\n  rooda: x\n", "libraries:\n  a b: x\n", "libraries:\n  team:\n", "libraries: [x]\n"} {
		if _, err := Decode([]byte(bad), Source{Workspace, "./rooda-config.yml"}, "/w"); err == nil || !strings.Contains(err.Error(), "librar") {
			t.Errorf("%q: %v", bad, err)
		}
	}
}
