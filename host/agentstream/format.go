package agentstream

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// A Format names what a CLI prints: plain text, or one CLI's JSON stream.
type Format string

// The formats a Decoder reads. The comment of each says how its CLI is
// asked for it.
const (
	// Text is the output as it is, not decoded: the assistant text is all
	// of it. The default for a custom ai_cmd.
	Text Format = "text"
	// Claude is `claude -p --output-format stream-json --verbose`.
	Claude Format = "claude-stream-json"
	// Codex is `codex exec --json`.
	Codex Format = "codex-json"
	// Gemini is `gemini --output-format stream-json`.
	Gemini Format = "gemini-stream-json"
	// OpenCode is `opencode run --format json`.
	OpenCode Format = "opencode-json"
	// Copilot is `copilot -p … --output-format json`.
	Copilot Format = "copilot-json"
)

// Formats lists every format, Text first.
func Formats() []Format { return []Format{Text, Claude, Codex, Gemini, OpenCode, Copilot} }

// ParseFormat returns the format called name (as in a configuration file).
// An unknown name is an error that lists the known ones.
func ParseFormat(name string) (Format, error) {
	if f := Format(name); slices.Contains(Formats(), f) {
		return f, nil
	}
	names := make([]string, 0, len(Formats()))
	for _, f := range Formats() {
		names = append(names, string(f))
	}
	return "", fmt.Errorf("unknown output format %q (known: %s)", name, strings.Join(names, ", "))
}

// lineDecoder turns one line of a CLI's JSON stream into events. It
// reports false when the line is not JSON of its CLI, which the Decoder
// then keeps as output.
type lineDecoder interface {
	decode(line []byte, emit func(Event)) bool
}

// typed reports whether line is a JSON object with a "type": a line of a
// CLI's JSON stream, whatever its shape.
func typed(line []byte) bool {
	var head struct {
		Type string `json:"type"`
	}
	return json.Unmarshal(line, &head) == nil && head.Type != ""
}

// newLineDecoder returns the decoder of a structured format, nil for Text.
func newLineDecoder(f Format) lineDecoder {
	switch f {
	case Claude:
		return &claudeDecoder{drift: drift{cli: "claude", written: &claudeCauses}}
	case Codex:
		return &codexDecoder{drift: drift{cli: "codex", written: &codexCauses}}
	case Gemini:
		return &geminiDecoder{drift: drift{cli: "gemini", written: &geminiCauses}}
	case OpenCode:
		return &opencodeDecoder{drift: drift{cli: "opencode", written: &opencodeCauses}}
	case Copilot:
		return &copilotDecoder{drift: drift{cli: "copilot", written: &copilotCauses}}
	}
	return nil
}
