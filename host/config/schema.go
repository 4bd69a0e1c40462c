package config

import (
	"maps"

	"rooda/host/agentstream"
	"rooda/host/prompt"
)

// Config is a whole configuration: one tier as read from a file, or the
// merge of all tiers.
type Config struct {
	// Loop is the loop: section, the defaults for every procedure, and
	// the loop-wide settings.
	Loop       Limits
	Aliases    map[string]Value[Alias]
	Procedures map[string]*Procedure
	// Libraries maps a Starlark library's name to where it is: scripts
	// load its files as @name//path.
	Libraries map[string]Value[Library]
	// Prices are what models' tokens cost: model_prices:.
	Prices map[string]Value[Price]
	// Run holds the command line's overrides for one run (--max-iterations,
	// --ai-cmd …): they beat even a procedure's own settings.
	Run Limits
	// Files lists the configuration files that were read, lowest tier first.
	Files []Source
}

// MinMaxMemory is the smallest memory budget: rooda itself takes a few
// tens of MiB.
const MinMaxMemory = 64 << 20

// Limits are the values one tier gives the settings of the table, by key
// (read them with the setting's handle: FailureThreshold.In(&limits)),
// and its checks.
type Limits struct {
	values map[string]stored
	// Checks are commands run after each iteration, whose results the
	// digest states.
	Checks Value[[]Check]
}

func (l *Limits) limits() *Limits { return l }

func (l *Limits) put(key string, s stored) {
	if l.values == nil {
		l.values = map[string]stored{}
	}
	l.values[key] = s
}

// Without is a copy of l without the values of keys.
func (l Limits) Without(keys ...string) Limits {
	l.values = maps.Clone(l.values)
	for _, k := range keys {
		delete(l.values, k)
	}
	return l
}

// Procedure is one entry of procedures:.
type Procedure struct {
	Name        string
	Display     Value[string]
	Summary     Value[string]
	Description Value[string]
	// Phases holds the fragments of each phase. A tier that gives a phase
	// replaces that whole phase.
	Phases [len(prompt.Phases)]Value[[]prompt.Fragment]
	// Script is the absolute path of a .star file that runs the procedure
	// instead of its phases.
	Script Value[string]
	Limits
}

// Alias is an AI command with a name: ai_cmd_aliases: {name: command} or
// {name: {cmd: command, output: format}}.
type Alias struct {
	Line string // the command line
	// Output is the format of what the command prints: "" (text, read as
	// it is) or the name of a CLI's JSON stream, which the host decodes.
	Output string
	// Account names the account the command spends from (account:),
	// whose usage limits every loop of it shares (host/ledger); "" is
	// the CLI's name and a fingerprint of its credential.
	Account string
	// Writes are the directories and files the command's program writes
	// its state to (sandbox_write:), which a sandbox lets it write: "~/"
	// and "${VAR:-default}" are expanded as the agent starts.
	Writes []string
	// Hosts are the hosts the command's program needs to reach
	// (sandbox_hosts:), which sandbox_hosts' "defaults" stands for.
	Hosts []string
}

// Check is a command run after each iteration: checks: [{name, run}].
type Check struct {
	Name string
	Run  string
}

// Library is where a Starlark library is: a directory, or a git source
// that rooda fetches and pins in rooda.lock.
type Library struct {
	Dir  string // a directory, absolute; "" for a git source
	Git  string // the repository's URL
	Ref  string // the tag, branch or commit to take; "HEAD" when not given
	Path string // the library's directory in the repository, "" for its root
	// LockDir is the directory of the file that names the library, where
	// its rooda.lock is.
	LockDir string
}

// The values of the enumerated settings.
const (
	ModeMaxIterations = "max-iterations"
	ModeUnlimited     = "unlimited"
)

var (
	iterationModes = []string{ModeMaxIterations, ModeUnlimited}
	logLevels      = []string{"debug", "info", "warn", "error"}
	logFormats     = []string{"text", "json"}
	// TelemetryValues are the values of telemetry.
	TelemetryValues = []string{"rooda", "agents"}
	// SandboxModes are the values of sandbox (host/sandbox's modes).
	SandboxModes = []string{"off", "workspace", "best-effort"}
	// timestampFormats are the upstream Go rooda's, spelled as it does.
	timestampFormats = []string{"time", "time-ms", "relative", "iso", "none"}
	statusLineModes  = []string{"auto", "off"}
)

// Prompt is the procedure in the form host/prompt composes.
func (p *Procedure) Prompt() prompt.Procedure {
	out := prompt.Procedure{Name: p.Name}
	for i := range p.Phases {
		out.Phases[i] = p.Phases[i].V
	}
	return out
}

// HasPhases reports whether any phase was given.
func (p *Procedure) HasPhases() bool {
	for _, ph := range p.Phases {
		if ph.Set {
			return true
		}
	}
	return false
}

// outputFormats are what an alias's output may be: text, read as it is,
// or a CLI's JSON stream, which host/agentstream decodes.
func outputFormats() []string {
	var names []string
	for _, f := range agentstream.Formats() {
		names = append(names, string(f))
	}
	return names
}
