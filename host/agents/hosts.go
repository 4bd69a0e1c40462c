package agents

import (
	"maps"
	"path/filepath"
	"slices"

	"rooda/host/config"
)

// Hosts are, by program (the base name of an alias's first word), the
// hosts its aliases declare it needs (sandbox_hosts:), which
// sandbox_hosts' "defaults" stands for under a sandbox.
func Hosts(aliases map[string]config.Value[config.Alias]) map[string][]string {
	hosts := map[string][]string{}
	for _, name := range slices.Sorted(maps.Keys(aliases)) {
		a := aliases[name]
		if program, ok := program(a.V); ok {
			base := filepath.Base(program)
			for _, h := range a.V.Hosts {
				if !slices.Contains(hosts[base], h) {
					hosts[base] = append(hosts[base], h)
				}
			}
		}
	}
	return hosts
}
