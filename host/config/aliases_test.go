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
		row := "| `" + name + "` | `" + cfg.Aliases[name].V + "` |"
		if !strings.Contains(string(readme), row) {
			t.Errorf("README lacks the row %s", row)
		}
	}
}

// TestGeminiAliasTrustsTheWorkspace: gemini exits 55 before any request
// in a folder it does not trust, which a fresh ~/.gemini trusts none
// of; the alias must not depend on the user having trusted it.
func TestGeminiAliasTrustsTheWorkspace(t *testing.T) {
	cfg := newSandbox(t).mustLoad()
	if cmd := cfg.Aliases["gemini"].V; !strings.Contains(" "+cmd+" ", " --skip-trust ") {
		t.Errorf("gemini's alias is %q, without --skip-trust", cmd)
	}
}
