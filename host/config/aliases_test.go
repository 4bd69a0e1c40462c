package config

import (
	"os"
	"strings"
	"testing"
)

// TestAliasesDocumented: every built-in alias has a note for "rooda info"
// and a row in the README's table showing its exact command.
func TestAliasesDocumented(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	cfg := newSandbox(t).mustLoad()
	for _, name := range cfg.AliasNames() {
		if AliasNote(name) == "" {
			t.Errorf("alias %s has no note", name)
		}
		row := "| `" + name + "` | `" + cfg.Aliases[name].V.Line + "` |"
		if !strings.Contains(string(readme), row) {
			t.Errorf("README lacks the row %s", row)
		}
	}
}
