package prompt

// Phase is one of the four OODA phases; its value is its position in the
// prompt, so Phase can index Procedure.Phases.
type Phase int

// The phases in loop order.
const (
	Observe Phase = iota
	Orient
	Decide
	Act
)

// Phases lists every phase in prompt order.
var Phases = [...]Phase{Observe, Orient, Decide, Act}

var phaseNames = [...]string{"observe", "orient", "decide", "act"}

// The directive lines of seed 000's section markers: each tells the agent
// what to do with the phase, not merely what it is called.
var directives = [...]string{
	"Execute these observation tasks to gather information.",
	"Analyze the information you gathered and form your understanding.",
	"Make decisions about what actions to take.",
	"Execute the actions you decided on. Modify files, run commands, commit changes.",
}

// String returns the phase's lower-case name, as in config keys and paths.
func (p Phase) String() string { return phaseNames[p] }

// Number returns the phase's 1-based position, as shown in "PHASE 1: OBSERVE".
func (p Phase) Number() int { return int(p) + 1 }

// Directive returns the line that follows the phase's title in the prompt.
func (p Phase) Directive() string { return directives[p] }

// ParsePhase returns the phase with the given lower-case name.
func ParsePhase(name string) (Phase, bool) {
	for _, p := range Phases {
		if p.String() == name {
			return p, true
		}
	}
	return 0, false
}

// PhaseNames returns the names of all phases in order.
func PhaseNames() []string { return append([]string(nil), phaseNames[:]...) }
