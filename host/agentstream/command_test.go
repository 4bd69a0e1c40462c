package agentstream

import (
	"strings"
	"testing"
)

// TestFormatOfCommand: a known CLI asked for its JSON stream on its own
// command line is read in that CLI's format; asked for anything else, or
// another program, it is text.
func TestFormatOfCommand(t *testing.T) {
	for line, want := range map[string]Format{
		"claude -p --output-format stream-json --verbose":      Claude,
		"/usr/local/bin/claude -p --output-format=stream-json": Claude,
		"claude -p --output-format json":                       Text,
		"claude -p":                                            Text,
		"codex exec --json -":                                  Codex,
		"codex --json":                                         Text,
		"gemini --yolo --output-format stream-json":            Gemini,
		"opencode run --format json":                           OpenCode,
		"opencode --format json":                               Text,
		"copilot -p hi --output-format json":                   Copilot,
		"./claude-wrapper.sh --output-format stream-json":      Text,
		"": Text,
	} {
		if got := FormatOfCommand(strings.Fields(line)); got != want {
			t.Errorf("%q: %s, want %s", line, got, want)
		}
	}
}

// TestReportsAgreesWithWrite: what Reports says a format reports is what
// Write lets a reply of that format carry, so that the start's warning
// of a budget that cannot be counted says what the decoders find.
func TestReportsAgreesWithWrite(t *testing.T) {
	for _, f := range Formats() {
		tokens, cost := f.Reports()
		_, tokErr := Write(f, Reply{Usage: Usage{Input: 10, Output: 5}})
		_, costErr := Write(f, Reply{Usage: Usage{Input: 10, Output: 5}, Cost: 0.5, HasCost: true})
		if tokens != (tokErr == nil) || cost != (costErr == nil) {
			t.Errorf("%s: Reports says tokens %v, cost %v; Write refuses tokens: %v, a cost: %v", f, tokens, cost, tokErr, costErr)
		}
	}
}
