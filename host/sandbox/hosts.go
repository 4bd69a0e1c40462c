package sandbox

import (
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"
)

// Defaults is the entry of sandbox_hosts that stands for the hosts the
// agent's CLI needs, as its alias declares them (sandbox_hosts: in
// ai_cmd_aliases).
const Defaults = "defaults"

// A Host is one entry of sandbox_hosts: a name or an address, or
// "*.suffix" for every name below suffix; with a port, or none for 443
// and 80.
type Host struct {
	// Name is lower-case, without brackets or a final dot; for a
	// wildcard, the suffix with its leading dot (".npmjs.org").
	Name     string
	Port     int
	Wildcard bool
}

// ParseHost reads one entry of sandbox_hosts: "api.anthropic.com",
// "*.npmjs.org", "127.0.0.1:8080", "[::1]:8080".
func ParseHost(entry string) (Host, error) {
	e := strings.TrimSpace(entry)
	name, port := e, 0
	if h, p, err := net.SplitHostPort(e); err == nil {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 {
			return Host{}, fmt.Errorf("%q: the port must be 1-65535", entry)
		}
		name, port = h, n
	}
	name = strings.TrimSuffix(strings.ToLower(strings.Trim(name, "[]")), ".")
	h := Host{Name: name, Port: port}
	if rest, ok := strings.CutPrefix(name, "*."); ok {
		h.Name, h.Wildcard = "."+rest, true
	}
	label := strings.TrimPrefix(h.Name, ".")
	if label == "" || strings.ContainsAny(label, "*/ @?#") {
		return Host{}, fmt.Errorf("%q is not a host, host:port or *.domain", entry)
	}
	return h, nil
}

// String is the entry as sandbox_hosts would give it.
func (h Host) String() string {
	name := h.Name
	if h.Wildcard {
		name = "*" + name
	}
	if h.Port == 0 {
		return name
	}
	return net.JoinHostPort(name, strconv.Itoa(h.Port))
}

// allows says whether h lets a connection to name:port through.
func (h Host) allows(name string, port int) bool {
	if h.Port == 0 && port != 443 && port != 80 || h.Port != 0 && port != h.Port {
		return false
	}
	name = strings.TrimSuffix(strings.ToLower(strings.Trim(name, "[]")), ".")
	if h.Wildcard {
		return strings.HasSuffix(name, h.Name) && len(name) > len(h.Name)
	}
	return name == h.Name
}

// Loopback says whether h names a loopback address with a port
// (127.0.0.1:8080, localhost:8080, [::1]:8080): there is a listener
// on it inside the agent's namespace too, for the clients that never
// send loopback through a proxy.
func (h Host) Loopback() bool {
	if h.Port == 0 || h.Wildcard {
		return false
	}
	ip := net.ParseIP(h.Name)
	return h.Name == "localhost" || ip != nil && ip.IsLoopback()
}

// ParseHosts reads the entries of sandbox_hosts, each once.
func ParseHosts(entries []string) ([]Host, error) {
	var hosts []Host
	for _, e := range entries {
		h, err := ParseHost(e)
		if err != nil {
			return nil, err
		}
		if !contains(hosts, h) {
			hosts = append(hosts, h)
		}
	}
	return hosts, nil
}

func contains(hosts []Host, h Host) bool {
	for _, x := range hosts {
		if x == h {
			return true
		}
	}
	return false
}

// A Refusal is a host and port the proxy refused, and how often, for
// the iteration's record.
type Refusal struct {
	Host  string `json:"host"`
	Port  int    `json:"port"`
	Count int    `json:"count"`
}

// AddRefusals adds more to refused, a count for each host and port.
func AddRefusals(refused, more []Refusal) []Refusal {
	for _, m := range more {
		i := slices.IndexFunc(refused, func(r Refusal) bool { return r.Host == m.Host && r.Port == m.Port })
		if i < 0 {
			refused = append(refused, m)
			continue
		}
		refused[i].Count += m.Count
	}
	return refused
}

// Net is what the trampoline needs to give the agent a network of its
// own whose one way out is the iteration's proxy (Proxy): the
// descriptor it inherits to hand the proxy its listeners (Handoff's),
// and the loopback entries listened on inside too. Hosts and Refused
// are for the record.
type Net struct {
	Handoff  int       `json:"handoff_fd"`
	Hosts    []string  `json:"hosts"`
	Loopback []string  `json:"loopback,omitempty"`
	Refused  []Refusal `json:"refused,omitempty"`
}

// NewNet is the Net of a proxy that lets hosts through, its Handoff
// inherited as descriptor handoff.
func NewNet(handoff int, hosts []Host) *Net {
	n := &Net{Handoff: handoff, Hosts: []string{}}
	for _, h := range hosts {
		n.Hosts = append(n.Hosts, h.String())
		if h.Loopback() {
			n.Loopback = append(n.Loopback, h.String())
		}
	}
	return n
}
