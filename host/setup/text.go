package setup

import (
	_ "embed"
	"strconv"
	"strings"
	"sync"
	"text/template"

	"rooda/host/sandbox"
)

var (
	//go:embed files/rooda-config.yml.tmpl
	configTemplate string
	//go:embed files/AGENTS.md
	agentsSkeleton string
)

// configText is parsed when init asks for it, not at every start.
var configText = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("rooda-config.yml").Funcs(template.FuncMap{"quote": quoted}).Parse(configTemplate))
})

// Agent is the agent init sets up: an alias, or a command line of the
// user's own, under an alias of theirs when Alias names one.
type Agent struct {
	Alias string
	// Command, when set, is the user's own command line; Output the
	// format of what it prints ("" for text).
	Command, Output string
}

// ConfigText is the rooda-config.yml init writes: agent chosen, the
// other settings a newcomer may want shown commented out, with what they
// do.
func ConfigText(agent Agent, aliases []string) string {
	var b strings.Builder
	data := map[string]any{"Agent": agent.Alias, "Aliases": strings.Join(aliases, ", "), "Sandbox": sandbox.ABI() > 0,
		"Command": quoted(agent.Command), "Output": agent.Output}
	// An alias of the user's own is quoted where written: "null" or
	// "yes" would read as no name at all.
	if err := configText().Execute(&b, data); err != nil {
		panic(err) // the template is embedded, and its data always fit it
	}
	return b.String()
}

// quoted is s as a YAML double-quoted scalar, "" for none: Go's escapes
// are all YAML's too.
func quoted(s string) string {
	if s == "" {
		return ""
	}
	return strconv.Quote(s)
}
