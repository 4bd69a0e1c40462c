package setup

import (
	_ "embed"
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
	return template.Must(template.New("rooda-config.yml").Parse(configTemplate))
})

// ConfigText is the rooda-config.yml init writes: agent chosen, the
// other settings a newcomer may want shown commented out, with what they
// do.
func ConfigText(agent string, aliases []string) string {
	var b strings.Builder
	data := map[string]any{"Agent": agent, "Aliases": strings.Join(aliases, ", "), "Sandbox": sandbox.ABI() > 0}
	if err := configText().Execute(&b, data); err != nil {
		panic(err) // the template is embedded, and its data always fit it
	}
	return b.String()
}
