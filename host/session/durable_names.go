package session

import "rooda/host/journal"

// loopNamed names a loop's call as a warning says it: a YAML or
// built-in procedure, which no script calls and which has no place, as
// "procedure build"; a script's as "iterate(build) at main.star:2".
func loopNamed(c call) string {
	if c.pos == "" {
		return "procedure " + c.what
	}
	return describeCall(journal.Entry{Op: c.op, Pos: c.pos, What: c.what})
}
