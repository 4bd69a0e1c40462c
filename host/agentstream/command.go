package agentstream

import (
	"path/filepath"
	"slices"
	"strings"
)

// asked is how each CLI is asked for its JSON stream: its program, the
// subcommand it needs first (none: ""), and the flag with its value, each
// given as one word ("--format=json") or two.
var asked = []struct {
	program, subcommand, flag, value string
	format                           Format
}{
	{"claude", "", "--output-format", "stream-json", Claude},
	{"codex", "exec", "--json", "", Codex},
	{"gemini", "", "--output-format", "stream-json", Gemini},
	{"opencode", "run", "--format", "json", OpenCode},
	{"copilot", "", "--output-format", "json", Copilot},
}

// FormatOfCommand is the format a command line asks its CLI for: a
// known CLI given the flag of its JSON stream (`claude -p --output-format
// stream-json`) prints that, and is read so, as its alias with output:
// would be. Any other command is Text.
func FormatOfCommand(argv []string) Format {
	if len(argv) == 0 {
		return Text
	}
	program := filepath.Base(argv[0])
	for _, a := range asked {
		if a.program == program && (a.subcommand == "" || slices.Contains(argv[1:], a.subcommand)) && hasFlag(argv[1:], a.flag, a.value) {
			return a.format
		}
	}
	return Text
}

// hasFlag reports whether args hold flag with value, or flag alone when
// value is "".
func hasFlag(args []string, flag, value string) bool {
	for i, arg := range args {
		switch {
		case value == "" && arg == flag:
			return true
		case value != "" && arg == flag && i+1 < len(args) && args[i+1] == value:
			return true
		case value != "" && strings.HasPrefix(arg, flag+"=") && strings.TrimPrefix(arg, flag+"=") == value:
			return true
		}
	}
	return false
}

// Reports says what f's CLI reports of what it spent: its tokens, and
// a cost of its own. A text agent reports neither; codex and gemini
// tokens alone (model_prices prices them); opencode a cost for the
// models it knows; copilot neither, with a provider of the user's own.
func (f Format) Reports() (tokens, cost bool) {
	switch f {
	case Claude, OpenCode:
		return true, true
	case Codex, Gemini:
		return true, false
	}
	return false, false
}
