package session

import (
	"fmt"
	"strings"

	"rooda/host/config"
	"rooda/host/process"
	"rooda/host/suggest"
)

// Agent is an AI command a script names: an alias, or a command line.
type Agent struct {
	Alias string // the alias it was named by, if any
	Line  string // the command line
	// Output is the format of what it prints (config.Alias.Output).
	Output string
	// Label, when set, is the name the script gave it (agent(name=…)).
	Label string
}

// Name is what the log, the record, it.agent and so the prompts a script
// hands it to call the agent: the name the script gave it, else its
// alias, else its command line.
func (a Agent) Name() string {
	if a.Label != "" {
		return a.Label
	}
	if a.Alias != "" {
		return a.Alias
	}
	return a.Line
}

// ResolveAgent reads agent("claude") or agent("my-cli --flag"): a name
// that is a configured alias is that alias; anything else must be a
// command line rooda can split. A lone word close to an alias is taken
// for a typo.
func (s *Session) ResolveAgent(nameOrCmd string, isCmd bool) (Agent, error) {
	return AgentIn(s.opts.Config, nameOrCmd, isCmd)
}

// AgentIn is ResolveAgent with the aliases of cfg: what rooda script
// check reads a literal agent with.
func AgentIn(cfg *config.Config, nameOrCmd string, isCmd bool) (Agent, error) {
	aliases := cfg.Aliases
	if !isCmd {
		if cmd, ok := aliases[nameOrCmd]; ok {
			return Agent{Alias: nameOrCmd, Line: cmd.V.Line, Output: cmd.V.Output}, nil
		}
		if !strings.ContainsAny(nameOrCmd, " /") {
			if near := suggest.Closest(nameOrCmd, cfg.AliasNames()); near != "" {
				return Agent{}, fmt.Errorf("unknown alias %q (did you mean %q?); for a command, write agent(cmd=%q)", nameOrCmd, near, nameOrCmd)
			}
		}
	}
	if _, err := process.Split(nameOrCmd); err != nil {
		return Agent{}, fmt.Errorf("%q is not a valid command line: %w", nameOrCmd, err)
	}
	return Agent{Line: nameOrCmd}, nil
}
