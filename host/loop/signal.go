package loop

import (
	"bytes"
	"strings"
)

// The promise signals of seed 001, exactly: case and spacing matter.
var (
	successSignal = []byte("<promise>SUCCESS</promise>")
	failureSignal = []byte("<promise>FAILURE</promise>")
)

// Signals are the promises found in an agent's output.
type Signals struct {
	Success bool
	Failure bool
}

// Scan looks for the promise signals in output, anywhere in a line. It
// runs once, after the agent has exited, over the whole kept output, so a
// signal split between two reads of the pipe is found.
//
// A line that is, trimmed, the same as a line of the prompt the agent was
// given is an echo and never counts: some CLIs print their prompt back,
// and the preamble itself names both signals.
func Scan(output []byte, prompt string) Signals {
	var s Signals
	if !bytes.Contains(output, promiseTag) {
		return s
	}
	echoes := promptLines(prompt)
	for rest := output; len(rest) > 0; {
		line := rest
		if i := bytes.IndexByte(rest, '\n'); i >= 0 {
			line, rest = rest[:i], rest[i+1:]
		} else {
			rest = nil
		}
		if !bytes.Contains(line, promiseTag) || echoes[string(bytes.TrimSpace(line))] {
			continue
		}
		s.Success = s.Success || bytes.Contains(line, successSignal)
		s.Failure = s.Failure || bytes.Contains(line, failureSignal)
	}
	return s
}

var promiseTag = []byte("<promise>")

// promptLines are the trimmed lines of the prompt that hold a promise
// tag: the only ones whose echo could be taken for a signal.
func promptLines(prompt string) map[string]bool {
	lines := map[string]bool{}
	for _, line := range strings.Split(prompt, "\n") {
		if strings.Contains(line, string(promiseTag)) {
			lines[strings.TrimSpace(line)] = true
		}
	}
	return lines
}
