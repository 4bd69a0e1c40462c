package config

import (
	"time"

	"rooda/host/prompt"
)

// Config is a whole configuration: one tier as read from a file, or the
// merge of all tiers.
type Config struct {
	Loop       Loop
	Aliases    map[string]Value[string]
	Procedures map[string]*Procedure
	// Libraries maps a Starlark library's name to where it is: scripts
	// load its files as @name//path.
	Libraries map[string]Value[Library]
	// Run holds the command line's overrides for one run (--max-iterations,
	// --ai-cmd …): they beat even a procedure's own settings.
	Run Limits
	// Files lists the configuration files that were read, lowest tier first.
	Files []Source
}

// MinMaxMemory is the smallest memory budget: rooda itself takes a few
// tens of MiB.
const MinMaxMemory = 64 << 20

// Limits are the settings a procedure can override for itself.
type Limits struct {
	IterationMode        Value[string]
	DefaultMaxIterations Value[int]
	// IterationTimeout of 0 means no timeout.
	IterationTimeout Value[time.Duration]
	MaxOutputBuffer  Value[int]
	FailureThreshold Value[int]
	// MinIterations is how many iterations run before a SUCCESS may end
	// the loop (seed 004).
	MinIterations Value[int]
	// Digest puts the facts of the previous iteration in each prompt
	// after the first (seed 003).
	Digest Value[bool]
	// Checks are commands run after each iteration, whose results the
	// digest states.
	Checks     Value[[]Check]
	AICmd      Value[string]
	AICmdAlias Value[string]
}

// Loop is the loop: section, the defaults for every procedure.
type Loop struct {
	Limits
	LogLevel     Value[string]
	ShowAIOutput Value[bool]
	// LogFormat is text (the seeds' lines) or json (an object per event).
	LogFormat Value[string]
	// RunsDir is where runs are recorded, from the working directory;
	// KeepRuns how many records are kept.
	RunsDir  Value[string]
	KeepRuns Value[int]
	// MaxMemory is the memory budget of a script's run, in bytes.
	MaxMemory Value[int]
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
