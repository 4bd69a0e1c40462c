package prompt

// Procedure is what the prompt is built from: a name for the preamble and
// the fragments of each phase, indexed by Phase.
type Procedure struct {
	Name   string
	Phases [len(Phases)][]Fragment
}

// Fragment is one piece of a phase: exactly one of Path and Content is set.
type Fragment struct {
	// Path is "builtin:fragments/<phase>/<name>.md" for the embedded
	// library, otherwise a file path; a relative one is resolved against Dir.
	Path string
	// Content is inline text, used as it is.
	Content string
	// Parameters, when not nil (even empty), make the text a Go
	// text/template executed with them as its data.
	Parameters map[string]any
	// Dir is the directory of the file that defined the fragment, so that
	// relative paths do not depend on where rooda was started.
	Dir string
	// Origin is where the fragment was defined ("./rooda-config.yml:12"),
	// shown in validation errors; empty for fragments built in code.
	Origin string
}

// Iteration tells the preamble where the loop is.
type Iteration struct {
	Number int // 1-based
	Max    int // 0 means unlimited
	// Min is how many iterations run before SUCCESS may end the loop;
	// above 1, the preamble says so (seed 004).
	Min int
	// Replayed is set for an iteration a resumed run answers from its
	// journal: the prompt is composed for what a script's functions do,
	// and the recorded one stands.
	Replayed bool
}
