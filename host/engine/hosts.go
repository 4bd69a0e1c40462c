package engine

import (
	"fmt"
	"net"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"rooda/host/config"
	"rooda/host/logging"
	"rooda/host/process"
	"rooda/host/sandbox"
)

// isolate, under sandbox_hosts, starts the iteration's proxy and has
// cmd's agent started in a network namespace of its own whose one way out
// it is: cmd.Attr (what the hiding asks, or nil) with the network
// namespace added, and the proxy's Handoff among the files the
// trampoline inherits. stop ends the proxy and puts what it refused in
// spec, for the record. Where there is no namespace to be had, sandbox:
// workspace fails, and best-effort runs the agent without one (the run's
// log said so at its start: SandboxShortfalls).
func (p *Plan) isolate(spec *sandbox.Spec, cmd *process.Command, program string) (stop func(), err error) {
	hosts, err := p.allowedHosts(program)
	if err != nil || hosts == nil {
		return func() {}, err
	}
	proxy, err := sandbox.StartProxy(hosts, p.refusals.say)
	if err != nil {
		return func() {}, fmt.Errorf("sandbox_hosts: the proxy: %w", err)
	}
	// ExtraFiles are descriptors 3, 4, …, in order.
	n := sandbox.NewNet(3+len(cmd.ExtraFiles), hosts)
	isolated, err := spec.IsolateNet(cmd.Attr, n)
	if err != nil {
		proxy.Close()
		if spec.Mode == sandbox.Workspace {
			return func() {}, fmt.Errorf("sandbox_hosts needs a network namespace of the agent's own: %w", err)
		}
		return func() {}, nil
	}
	cmd.Attr, cmd.ExtraFiles = isolated, append(cmd.ExtraFiles, proxy.Handoff())
	return func() { n.Refused = proxy.Close() }, nil
}

// allowedHosts are the hosts sandbox_hosts lets the agent of program
// reach, "defaults" replaced by those its aliases declare; nil when
// sandbox_hosts is not set.
func (p *Plan) allowedHosts(program string) ([]sandbox.Host, error) {
	entries := config.SandboxHosts.In(p.Settings).V
	if len(entries) == 0 {
		return nil, nil
	}
	var expanded []string
	for _, e := range entries {
		if e == sandbox.Defaults {
			expanded = append(expanded, p.aliasHosts[program]...)
			continue
		}
		expanded = append(expanded, e)
	}
	hosts, err := sandbox.ParseHosts(expanded)
	if hosts == nil && err == nil {
		hosts = []sandbox.Host{} // "defaults" of a program that declares none: nothing
	}
	return hosts, err
}

// checkHosts refuses sandbox_hosts under sandbox: workspace where the
// agent cannot have a network namespace of its own.
func (p *Plan) checkHosts() {
	given := config.SandboxHosts.In(p.Settings)
	if len(given.V) == 0 || config.Sandbox.In(p.Settings).V != sandbox.Workspace {
		return
	}
	if err := sandbox.CanIsolateNet(); err != nil {
		p.fail("", fmt.Errorf("sandbox_hosts (%s) needs a network namespace of the agent's own, which this system cannot give (%v): leave it out, or use sandbox: best-effort", given.Where(), err))
	}
}

// hostsShortfall says, under best-effort, that sandbox_hosts cannot be
// applied here.
func (p *Plan) hostsShortfall() []string {
	if len(config.SandboxHosts.In(p.Settings).V) == 0 {
		return nil
	}
	if err := sandbox.CanIsolateNet(); err != nil {
		return []string{"not applied: sandbox_hosts, which needs a network namespace of the agent's own: " + err.Error() + "; the agent connects anywhere"}
	}
	return nil
}

// hostsRules is the dry run's line of what the agent may reach.
func (p *Plan) hostsRules() []string {
	program := ""
	if len(p.Argv) > 0 {
		program = filepath.Base(p.Argv[0])
	}
	hosts, err := p.allowedHosts(program)
	if err != nil || hosts == nil {
		return nil
	}
	var names []string
	for _, h := range hosts {
		names = append(names, h.String())
	}
	if len(names) == 0 {
		names = []string{"nothing"}
	}
	return []string{"reaches, through its proxy only: " + strings.Join(names, ", ")}
}

// A refusalLog says each host the proxy refused once in the loop's log;
// meta.json counts them all.
type refusalLog struct {
	log  *logging.Logger
	mu   sync.Mutex
	said []string
}

func newRefusalLog(log *logging.Logger) *refusalLog { return &refusalLog{log: log} }

// say logs a refusal of host:port, unless host was said before.
func (r *refusalLog) say(host string, port int) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if slices.Contains(r.said, host) {
		return
	}
	r.said = append(r.said, host)
	r.log.Warnf("Sandbox: refused a connection to %s: not in sandbox_hosts (each refusal is in the iteration's meta.json)", net.JoinHostPort(host, strconv.Itoa(port)))
}
