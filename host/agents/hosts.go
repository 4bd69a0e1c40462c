package agents

import "rooda/host/config"

// Hosts are, by program (the base name of an alias's first word), the
// hosts its aliases declare it needs (sandbox_hosts:), which
// sandbox_hosts' "defaults" stands for under a sandbox.
func Hosts(aliases map[string]config.Value[config.Alias]) map[string][]string {
	return byProgram(aliases, func(a config.Alias) []string { return a.Hosts })
}
