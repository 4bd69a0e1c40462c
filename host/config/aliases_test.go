package config

import (
	"os"
	"reflect"
	"strings"
	"testing"

	"rooda/host/agentstream"
)

// TestAliasesDocumented: every built-in alias has a note for "rooda info"
// and a row in the table of docs/agents.md showing its exact command.
func TestAliasesDocumented(t *testing.T) {
	readme, err := os.ReadFile("../../docs/agents.md")
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
			t.Errorf("docs/agents.md lacks the row %s", row)
		}
	}
}

// TestAliasOutput: an alias may say what its command prints, the account
// it spends from, and what its program writes under a sandbox; the run
// that uses it knows the format, and config show writes it back.
func TestAliasOutput(t *testing.T) {
	s := newSandbox(t)
	s.workspace(`ai_cmd_aliases:
  structured: {cmd: "claude -p --output-format stream-json --verbose", output: claude-stream-json, account: team, sandbox_write: [~/.x, "${A:-~/.y}/z"]}
  plain: my-agent --fast
loop:
  ai_cmd_alias: structured
`)
	cfg := s.mustLoad()
	if got := cfg.Aliases["structured"].V; !reflect.DeepEqual(got, Alias{Line: "claude -p --output-format stream-json --verbose", Output: "claude-stream-json", Account: "team", Writes: []string{"~/.x", "${A:-~/.y}/z"}}) {
		t.Errorf("structured alias: %+v", got)
	}
	if got := cfg.Aliases["plain"].V; !reflect.DeepEqual(got, Alias{Line: "my-agent --fast"}) {
		t.Errorf("plain alias: %+v", got)
	}
	settings, err := cfg.Resolve("build")
	if err != nil {
		t.Fatal(err)
	}
	if settings.AIOutput != "claude-stream-json" || settings.AICommand.V != "claude -p --output-format stream-json --verbose" {
		t.Errorf("resolved: %q, output %q", settings.AICommand.V, settings.AIOutput)
	}
	var out strings.Builder
	if err := cfg.WriteYAML(&out); err != nil {
		t.Fatal(err)
	}
	again := newSandbox(t)
	again.workspace(out.String())
	if got := again.mustLoad().Aliases["structured"].V; !reflect.DeepEqual(got, cfg.Aliases["structured"].V) {
		t.Errorf("config show's alias reads back as %+v:\n%s", got, out.String())
	}
}

// TestAliasOutputErrors: a format rooda does not know, and a mapping
// without its command, are errors at their line.
func TestAliasOutputErrors(t *testing.T) {
	s := newSandbox(t)
	s.workspace(`ai_cmd_aliases:
  a: {cmd: x, output: claude-stream-jsn}
  b: {output: text}
`)
	_, err := s.load()
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{
		`rooda-config.yml:2:23: ai_cmd_aliases.a.output must be one of text, claude-stream-json`,
		`(did you mean "claude-stream-json"?)`,
		`rooda-config.yml:3:6: ai_cmd_aliases.b needs cmd: the command line`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
}

// TestModelPrices: model_prices: prices a model's tokens in dollars per
// million; an unpriced model has no price; config show reads back.
func TestModelPrices(t *testing.T) {
	s := newSandbox(t)
	s.workspace(`model_prices:
  local-model: {input: 3, output: 15, cache_read: 0.3}
`)
	cfg := s.mustLoad()
	p, ok := cfg.PriceOf("local-model")
	if !ok || p != (Price{Input: 3, Output: 15, CacheRead: 0.3}) {
		t.Fatalf("price: %+v %v", p, ok)
	}
	if got := p.Cost(1_000_000, 100_000, 1_000_000, 0); got < 4.79 || got > 4.81 {
		t.Errorf("cost of 1M in, 100k out, 1M cached: %v, want 4.80", got)
	}
	if _, ok := cfg.PriceOf("unknown-model"); ok {
		t.Error("an unpriced model has a price")
	}
	var out strings.Builder
	cfg.WriteYAML(&out)
	again := newSandbox(t)
	again.workspace(out.String())
	if got, _ := again.mustLoad().PriceOf("local-model"); got != p {
		t.Errorf("config show reads back as %+v:\n%s", got, out.String())
	}
	bad := newSandbox(t)
	bad.workspace("model_prices:\n  m: {input: x, output: 1}\n  n: {output: 1}\n")
	_, err := bad.load()
	for _, want := range []string{"2:14: model_prices.m.input must be dollars per million tokens", "3:6: model_prices.n needs input and output"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q: %v", want, err)
		}
	}
}

// TestGeminiAliasTrustsTheWorkspace: gemini exits 55 before any request
// in a folder it does not trust, which a fresh ~/.gemini trusts none
// of; the alias must not depend on the user having trusted it.
func TestGeminiAliasTrustsTheWorkspace(t *testing.T) {
	cfg := newSandbox(t).mustLoad()
	if cmd := cfg.Aliases["gemini"].V.Line; !strings.Contains(" "+cmd+" ", " --skip-trust ") {
		t.Errorf("gemini's alias is %q, without --skip-trust", cmd)
	}
}

// TestBuiltInAliasesAskAsAgentstreamReads: the command line of each
// built-in alias that declares output: asks its CLI for that format as
// agentstream.FormatOfCommand reads a command line, so --ai-cmd given the
// alias's command line is read as the alias is. Two lists of the same
// flags, kept the same here.
func TestBuiltInAliasesAskAsAgentstreamReads(t *testing.T) {
	cfg := newSandbox(t).mustLoad()
	checked := 0
	for name, a := range cfg.Aliases {
		if a.V.Output == "" {
			continue
		}
		checked++
		if got := agentstream.FormatOfCommand(strings.Fields(a.V.Line)); string(got) != a.V.Output {
			t.Errorf("alias %s (%s, output: %s) is read from its command line as %s", name, a.V.Line, a.V.Output, got)
		}
	}
	if checked < 5 {
		t.Errorf("only %d built-in aliases declare an output", checked)
	}
}
