package config

import (
	"strings"

	"gopkg.in/yaml.v3"

	roodasandbox "rooda/host/sandbox"
)

// Hosts reads sandbox_hosts: hosts separated by commas, each a name or
// an address with or without a port, "*.domain", or "defaults" for those
// the agent's alias declares.
var Hosts = Parser[[]string]{
	accepts: "hosts separated by ',' (api.anthropic.com, *.npmjs.org, 127.0.0.1:8080, defaults), or a YAML list",
	sep:     ",",
	parse: func(s string) ([]string, error) {
		var hosts []string
		for _, f := range strings.Split(s, ",") {
			f = strings.TrimSpace(f)
			if f == "" {
				continue
			}
			if f != roodasandbox.Defaults {
				if _, err := roodasandbox.ParseHost(f); err != nil {
					return nil, err
				}
			}
			hosts = append(hosts, f)
		}
		return hosts, nil
	},
	format: func(hosts []string) string { return strings.Join(hosts, ",") },
}

// hosts decodes an alias's sandbox_hosts: a list of hosts, "defaults"
// not among them (it is what they are).
func (d *decoder) hosts(x *yaml.Node, path string) []string {
	hosts := d.strings(x, path)
	for _, h := range hosts {
		if _, err := roodasandbox.ParseHost(h); err != nil {
			d.errorf(x, "%s: %v", path, err)
		}
	}
	return hosts
}

// aliasHosts is an alias's sandbox_hosts as a flow mapping's last entry.
func aliasHosts(hosts []string) string {
	if len(hosts) == 0 {
		return ""
	}
	var items []string
	for _, h := range hosts {
		items = append(items, quoteFlow(h))
	}
	return ", sandbox_hosts: [" + strings.Join(items, ", ") + "]"
}
