// Package agents finds which of the agent CLIs the configuration's
// aliases start are installed on this machine (on PATH), and tells a user
// who has chosen no agent how to choose one: the flag and the line of
// rooda-config.yml for each agent found, or how to install one; and what
// each agent's program writes, as its aliases declare it, for a sandbox.
package agents

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"rooda/host/config"
	"rooda/host/process"
)

// Found is an alias whose program is installed.
type Found struct {
	Alias string
	// Path is the program the alias starts, as PATH finds it.
	Path string
}

// Installed lists, sorted by alias, the aliases whose program is found on
// PATH.
func Installed(aliases map[string]config.Value[config.Alias]) []Found {
	var out []Found
	for _, name := range slices.Sorted(maps.Keys(aliases)) {
		if program, ok := program(aliases[name].V); ok {
			if path, err := process.Find(program); err == nil {
				out = append(out, Found{Alias: name, Path: path})
			}
		}
	}
	return out
}

// program is the program alias starts, the first word of its command
// line; ok is false for a line that names none.
func program(alias config.Alias) (string, bool) {
	argv, err := process.Split(alias.Line)
	if err != nil || len(argv) == 0 {
		return "", false
	}
	return argv[0], true
}

// Names are the aliases of found, in order.
func Names(found []Found) []string {
	names := make([]string, len(found))
	for i, f := range found {
		names[i] = f.Alias
	}
	return names
}

// programs names the programs the aliases start, sorted, each once.
func programs(aliases map[string]config.Value[config.Alias]) []string {
	var out []string
	for _, a := range aliases {
		if program, ok := program(a.V); ok && !slices.Contains(out, program) {
			out = append(out, program)
		}
	}
	slices.Sort(out)
	return out
}

// StateDirs are, by program (the base name of an alias's first word),
// the paths its aliases declare it writes its state to (sandbox_write:),
// which a sandbox lets it write whichever alias or command line starts
// it.
func StateDirs(aliases map[string]config.Value[config.Alias]) map[string][]string {
	return byProgram(aliases, func(a config.Alias) []string { return a.Writes })
}

// byProgram gathers, by program, what each alias that starts it declares
// (declared), once each, in the order of the aliases' names.
func byProgram(aliases map[string]config.Value[config.Alias], declared func(config.Alias) []string) map[string][]string {
	out := map[string][]string{}
	for _, name := range slices.Sorted(maps.Keys(aliases)) {
		a := aliases[name]
		if program, ok := program(a.V); ok {
			base := filepath.Base(program)
			for _, d := range declared(a.V) {
				if !slices.Contains(out[base], d) {
					out[base] = append(out[base], d)
				}
			}
		}
	}
	return out
}

// npmPackages are the npm packages of the CLIs that are published there,
// in the order the advice names them (internal/realcli installs the
// same ones).
var npmPackages = [][2]string{
	{"claude", "@anthropic-ai/claude-code"},
	{"codex", "@openai/codex"},
	{"gemini", "@google/gemini-cli"},
	{"copilot", "@github/copilot"},
	{"opencode", "opencode-ai"},
}

// Advice tells a user who has chosen no agent how to choose one: each
// agent found on PATH with its flag and its line of rooda-config.yml, and
// rooda init; or, when none is, that none is and how to install one.
func Advice(aliases map[string]config.Value[config.Alias]) string {
	found := Installed(aliases)
	if len(found) == 0 {
		return NoneFound(aliases)
	}
	var b strings.Builder
	b.WriteString("Agent CLIs found on PATH; give one with its flag, or put its line in rooda-config.yml:\n")
	width := 0
	for _, f := range found {
		width = max(width, len(Flag(f.Alias)))
	}
	for _, f := range found {
		fmt.Fprintf(&b, "  %-*s    %s\n", width, Flag(f.Alias), ConfigLine(f.Alias))
	}
	b.WriteString("Or run 'rooda init' to write a rooda-config.yml that names one.")
	return b.String()
}

// NoneFound says that no agent CLI is on PATH, which programs were looked
// for, and how to install one or name any other.
func NoneFound(aliases map[string]config.Value[config.Alias]) string {
	var b strings.Builder
	fmt.Fprintf(&b, "No agent CLI found on PATH (looked for %s).\n", strings.Join(programs(aliases), ", "))
	var installs []string
	for _, p := range npmPackages {
		if _, ok := aliases[p[0]]; ok {
			installs = append(installs, fmt.Sprintf("  npm install -g %-25s   (%s)\n", p[1], p[0]))
		}
	}
	if len(installs) > 0 {
		b.WriteString("Install one, then run 'rooda init'; for example, with npm:\n" + strings.Join(installs, ""))
	}
	b.WriteString(`Or give your agent's command line: --ai-cmd "your-agent --its-flags".`)
	return b.String()
}

// Flag is the command-line flag that chooses alias.
func Flag(alias string) string { return "--ai-cmd-alias " + alias }

// ConfigLine is the line of rooda-config.yml that chooses alias.
func ConfigLine(alias string) string { return "loop: {ai_cmd_alias: " + alias + "}" }
