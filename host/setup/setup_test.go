package setup

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"rooda/host/agents"
	"rooda/host/config"
)

var aliases = []string{"claude", "codex", "gemini"}

// load loads the configuration of dir alone, with no environment.
func load(t *testing.T, dir string) *config.Config {
	t.Helper()
	cfg, err := config.Load(config.Options{WorkDir: dir, LookupEnv: func(string) (string, bool) { return "", false }})
	if err != nil {
		t.Fatalf("the configuration init writes does not load: %v", err)
	}
	return cfg
}

// TestConfigTextLoads: the configuration init writes names the agent,
// and so does rooda once it has loaded it.
func TestConfigTextLoads(t *testing.T) {
	dir := t.TempDir()
	if _, err := Write(dir, filepath.Join(dir, config.FileName), Agent{Alias: "codex"}, aliases, false); err != nil {
		t.Fatal(err)
	}
	cfg := load(t, dir)
	if got := config.AICmdAlias.In(&cfg.Loop); got.V != "codex" || !got.Set {
		t.Errorf("ai_cmd_alias: %+v", got)
	}
	if text := ConfigText(Agent{Alias: "codex"}, aliases); !strings.Contains(text, "the aliases claude, codex, gemini\n") {
		t.Errorf("the aliases are not listed:\n%s", text)
	}
}

// TestConfigOfYourOwnAgentLoads: a command line of the user's own, alone
// or under an alias of theirs, is what rooda loads back, quotes and
// backslashes in it kept, its output format with it; the commented-out
// examples still load once uncommented.
func TestConfigOfYourOwnAgentLoads(t *testing.T) {
	line := `my-agent --prompt "say \"hi\"" --json`
	for _, agent := range []Agent{{Command: line}, {Alias: "mine", Command: line, Output: "claude-stream-json"}, {Alias: "null", Command: line}, {Alias: "yes", Command: line}} {
		dir := t.TempDir()
		text := ConfigText(agent, aliases)
		for _, variant := range []string{text, example.ReplaceAllString(text, "$1$2")} {
			if err := os.WriteFile(filepath.Join(dir, config.FileName), []byte(variant), 0o644); err != nil {
				t.Fatal(err)
			}
			cfg := load(t, dir)
			s, err := cfg.Resolve("build")
			if err != nil {
				t.Fatal(err)
			}
			// An alias is written with its output, text when it names none.
			want := agent.Output
			if agent.Alias != "" && want == "" {
				want = "text"
			}
			if s.AICommand.V != line || s.AIAlias != agent.Alias || s.AIOutput != want {
				t.Errorf("%+v: loaded as %q, alias %q, output %q\n%s", agent, s.AICommand.V, s.AIAlias, s.AIOutput, variant)
			}
		}
	}
}

// example is a commented-out line of settings: "# " before a key or a
// list item as it would be written ("  # key: …", "#   - item").
var example = regexp.MustCompile(`(?m)^(\s*)# (\s*(?:[a-z_]+:|- ).*)$`)

// TestConfigExamplesLoad: the settings the configuration shows commented
// out load too, once uncommented, so a newcomer can use them as written.
func TestConfigExamplesLoad(t *testing.T) {
	dir := t.TempDir()
	text := example.ReplaceAllString(ConfigText(Agent{Alias: "claude"}, aliases), "$1$2")
	if err := os.WriteFile(filepath.Join(dir, config.FileName), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := load(t, dir)
	if got := config.AICmd.In(&cfg.Loop).V; got != "my-agent --headless" {
		t.Errorf("ai_cmd: %q\n%s", got, text)
	}
	if p, ok := cfg.Procedures["review"]; !ok || p.Summary.V != "Review the last commit" {
		t.Errorf("the example procedure did not load:\n%s", text)
	}
}

// TestWriteReplacesOnlyWhenForced: an existing configuration is an error
// unless forced; an existing AGENTS.md is kept either way.
func TestWriteReplacesOnlyWhenForced(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, config.FileName)
	for name, content := range map[string]string{path: "# mine\n", filepath.Join(dir, AgentsFile): "# my guide\n"} {
		if err := os.WriteFile(name, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if got := Existing(path); len(got) != 1 || got[0] != path {
		t.Errorf("Existing: %v", got)
	}
	if _, err := Write(dir, path, Agent{Alias: "claude"}, aliases, false); !errors.Is(err, fs.ErrExist) {
		t.Errorf("not forced: %v", err)
	}
	w, err := Write(dir, path, Agent{Alias: "claude"}, aliases, true)
	if err != nil || !w.AgentsKept {
		t.Fatalf("forced: %+v, %v", w, err)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, AgentsFile)); string(data) != "# my guide\n" {
		t.Errorf("AGENTS.md was replaced: %q", data)
	}
	if data, _ := os.ReadFile(path); !strings.Contains(string(data), "ai_cmd_alias: claude") {
		t.Errorf("the configuration was not replaced: %q", data)
	}
}

// TestChoose: --agent must be installed; with none asked, the only one
// installed, or the one picked, or an error that says how to choose.
func TestChoose(t *testing.T) {
	claude, codex := agents.Found{Alias: "claude", Path: "/bin/claude"}, agents.Found{Alias: "codex", Path: "/bin/codex"}
	pickSecond := func(found []agents.Found) (agents.Found, error) { return found[1], nil }
	tests := []struct {
		name    string
		choice  Choice
		want    string
		wantErr string
	}{
		{"asked, installed", Choice{Asked: "codex", Found: []agents.Found{claude, codex}}, "codex", ""},
		{"asked, not installed", Choice{Asked: "gemini", Found: []agents.Found{claude}, Aliases: aliases}, "", "--agent gemini: it is not installed (not on PATH)\nFound on PATH: claude\n"},
		{"asked, none installed", Choice{Asked: "gemini", Aliases: aliases, NoneFound: "NONE"}, "", "--agent gemini: it is not installed (not on PATH)\nNONE"},
		{"asked, unknown", Choice{Asked: "cladue", Found: []agents.Found{claude}, Aliases: aliases}, "", "--agent cladue: rooda knows no such agent (did you mean claude?)\nThe agents rooda knows: claude, codex, gemini"},
		{"the only one", Choice{Found: []agents.Found{codex}}, "codex", ""},
		{"none", Choice{NoneFound: "NONE"}, "", "no agent CLI to set up\nNONE"},
		{"several, asked on a terminal", Choice{Found: []agents.Found{claude, codex}, Ask: pickSecond}, "codex", ""},
		{"several, no terminal", Choice{Found: []agents.Found{claude, codex}}, "", "several agent CLIs are on PATH: claude, codex\nChoose one with --agent, as in: rooda init --agent claude"},
	}
	for _, tc := range tests {
		got, err := Choose(tc.choice)
		if got.Alias != tc.want || (err == nil) != (tc.wantErr == "") || (err != nil && !strings.HasPrefix(err.Error(), tc.wantErr)) {
			t.Errorf("%s: got %q, %v; want %q, %q", tc.name, got.Alias, err, tc.want, tc.wantErr)
		}
	}
}

// TestAsk: the question lists the agents by number, asks again after an
// answer that is none of them, and fails at the end of the input.
func TestAsk(t *testing.T) {
	found := []agents.Found{{Alias: "claude", Path: "/bin/claude"}, {Alias: "codex", Path: "/bin/codex"}}
	var out strings.Builder
	got, err := Ask(strings.NewReader("codex\n9\n 2 \n"), &out)(found)
	if err != nil || got.Alias != "codex" {
		t.Errorf("got %+v, %v", got, err)
	}
	if want := "  1) claude         /bin/claude\n  2) codex          /bin/codex\nWhich one should rooda run? [1-2]: Answer with a number from 1 to 2.\n"; !strings.Contains(out.String(), want) || strings.Count(out.String(), "Which one") != 3 {
		t.Errorf("the question:\n%s", out.String())
	}
	if _, err := Ask(strings.NewReader("x\n"), &out)(found); err == nil || !strings.Contains(err.Error(), "rooda init --agent NAME") {
		t.Errorf("at the end of the input: %v", err)
	}
}

// TestInitSandbox: init writes sandbox: workspace where the kernel has
// Landlock, and leaves it commented out, saying why, where it has not.
func TestInitSandbox(t *testing.T) {
	t.Setenv("ROODA_SANDBOX_ABI", "7")
	if text := ConfigText(Agent{Alias: "claude"}, []string{"claude"}); !strings.Contains(text, "\n  sandbox: workspace\n") {
		t.Errorf("with Landlock:\n%s", text)
	}
	t.Setenv("ROODA_SANDBOX_ABI", "0")
	if text := ConfigText(Agent{Alias: "claude"}, []string{"claude"}); !strings.Contains(text, "  # sandbox: workspace   (this kernel has no Landlock: not available here)\n") {
		t.Errorf("without Landlock:\n%s", text)
	}
}

// TestOwnAgentRefusesWhatYAMLWouldChange: a command line that is not valid
// UTF-8 would be written as YAML that reads back as other bytes; a name
// that is not one word would make ai_cmd_alias a rotation or nothing.
func TestOwnAgentRefusesWhatYAMLWouldChange(t *testing.T) {
	for _, c := range []struct{ line, alias, want string }{
		{"sh -c 'echo \xff'", "", "not valid UTF-8"},
		{"sh", "a,b", "one word"},
		{"sh", "my agent", "one word"},
	} {
		if _, err := OwnAgent(c.line, c.alias); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("OwnAgent(%q, %q): %v, want an error saying %q", c.line, c.alias, err, c.want)
		}
	}
	if _, err := OwnAgent("sh -c 'echo é'", "mine"); err != nil {
		t.Errorf("a valid command line and name: %v", err)
	}
}
