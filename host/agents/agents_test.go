package agents

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"rooda/host/config"
)

func alias(line string) config.Value[config.Alias] {
	return config.Value[config.Alias]{V: config.Alias{Line: line}, Set: true}
}

// onPath makes PATH a directory holding an executable of each name.
func onPath(t *testing.T, names ...string) string {
	dir := t.TempDir()
	for _, name := range names {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", dir)
	return dir
}

var aliases = map[string]config.Value[config.Alias]{
	"claude": alias("claude -p"), "codex": alias("codex exec -"), "fast": alias("claude --model haiku"), "mine": alias("my-agent"),
}

// TestInstalled: an alias is installed when the program it starts is on
// PATH, whatever its name.
func TestInstalled(t *testing.T) {
	dir := onPath(t, "claude")
	got := Installed(aliases)
	if len(got) != 2 || got[0] != (Found{"claude", filepath.Join(dir, "claude")}) || got[1].Alias != "fast" {
		t.Errorf("got %+v", got)
	}
}

// TestAdvice: each agent installed with its flag and its configuration
// line, aligned, and rooda init.
func TestAdvice(t *testing.T) {
	onPath(t, "claude", "codex")
	want := "Agent CLIs found on PATH; give one with its flag, or put its line in rooda-config.yml:\n" +
		"  --ai-cmd-alias claude    loop: {ai_cmd_alias: claude}\n" +
		"  --ai-cmd-alias codex     loop: {ai_cmd_alias: codex}\n" +
		"  --ai-cmd-alias fast      loop: {ai_cmd_alias: fast}\n" +
		"Or run 'rooda init' to write a rooda-config.yml that names one."
	if got := Advice(aliases); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// TestAdviceWithNoneInstalled: the programs looked for, each once, and
// how to install those npm has.
func TestAdviceWithNoneInstalled(t *testing.T) {
	onPath(t)
	got := Advice(aliases)
	for _, want := range []string{
		"No agent CLI found on PATH (looked for claude, codex, my-agent).\n",
		"Install one, then run 'rooda init'; for example, with npm:\n  npm install -g @anthropic-ai/claude-code   (claude)\n  npm install -g @openai/codex               (codex)\nOr give",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("lacks %q:\n%s", want, got)
		}
	}
}

// TestStateDirs: what a program's aliases declare it writes is that
// program's, whichever alias starts it, by base name, each path once.
func TestStateDirs(t *testing.T) {
	declared := map[string]config.Value[config.Alias]{
		"claude": {V: config.Alias{Line: "claude -p", Writes: []string{"~/.claude"}}, Set: true},
		"fast":   {V: config.Alias{Line: "/usr/bin/claude --model haiku", Writes: []string{"~/.claude", "~/.extra"}}, Set: true},
		"mine":   alias("my-agent"),
	}
	got := StateDirs(declared)
	if strings.Join(got["claude"], " ") != "~/.claude ~/.extra" {
		t.Errorf("claude: %q", got["claude"])
	}
	if len(got["my-agent"]) != 0 || len(got) != 1 {
		t.Errorf("state dirs: %q", got)
	}
}
