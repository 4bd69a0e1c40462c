package loop

import (
	"bytes"
	"strings"

	"rooda/host/prompt"
)

// Signals are the promises found in an agent's output.
type Signals struct {
	Success bool
	Failure bool
}

// String names the signals found: "SUCCESS", "FAILURE", "SUCCESS and
// FAILURE", or "none".
func (s Signals) String() string {
	switch {
	case s.Success && s.Failure:
		return "SUCCESS and FAILURE"
	case s.Success:
		return "SUCCESS"
	case s.Failure:
		return "FAILURE"
	}
	return "none"
}

// Scan looks for the promise signals in output, anywhere in a line. It
// runs once, after the agent has exited, over the whole kept output, so a
// signal split between two reads of the pipe is found.
//
// Some CLIs print their prompt back, and the prompt names both signals
// (the preamble; fragments that show the tag on a line of its own). A
// line with a tag is an echo, and never counts, when it is, trimmed, a
// line of the prompt and so is a line next to it (the nearest non-blank
// one before or after): an echo comes as a block. An agent's own bare
// "<promise>SUCCESS</promise>" still counts.
func Scan(output []byte, promptText string) Signals {
	return ScanFor(output, promptText, prompt.Promises{})
}

// ScanFor is Scan for the promise words the preamble named (seed 001's
// SUCCESS and FAILURE by default), exactly: case and spacing matter. The
// default word of a kind given custom ones is no signal: the agent was
// not asked for it.
func ScanFor(output []byte, text string, promises prompt.Promises) Signals {
	var s Signals
	if !MaySignal(output) {
		return s
	}
	success, failure := tagsOf(promises.SuccessWords()), tagsOf(promises.FailureWords())
	inPrompt := promptLines(text)
	lines := bytes.Split(output, []byte("\n"))
	for i, line := range lines {
		if !bytes.Contains(line, promiseTag) || isEcho(lines, i, inPrompt) {
			continue
		}
		s.Success = s.Success || containsAny(line, success)
		s.Failure = s.Failure || containsAny(line, failure)
	}
	return s
}

// tagsOf are words in their promise tags.
func tagsOf(words []string) [][]byte {
	out := make([][]byte, len(words))
	for i, w := range words {
		out[i] = []byte(prompt.Tag(w))
	}
	return out
}

func containsAny(line []byte, tags [][]byte) bool {
	for _, t := range tags {
		if bytes.Contains(line, t) {
			return true
		}
	}
	return false
}

var promiseTag = []byte("<promise>")

// MaySignal reports whether what an agent said holds a promise tag:
// without one, ScanFor finds no signal in it, whatever the prompt and
// the promise words (a resumed run judges such an iteration again
// without reading its output back).
func MaySignal(said []byte) bool { return bytes.Contains(said, promiseTag) }

// isEcho reports whether line i is a prompt line within a block of them.
func isEcho(lines [][]byte, i int, inPrompt map[string]bool) bool {
	if !inPrompt[string(bytes.TrimSpace(lines[i]))] {
		return false
	}
	for _, step := range []int{-1, 1} {
		for j := i + step; j >= 0 && j < len(lines); j += step {
			if t := bytes.TrimSpace(lines[j]); len(t) > 0 {
				if inPrompt[string(t)] {
					return true
				}
				break
			}
		}
	}
	return false
}

// promptLines are the prompt's non-blank lines, trimmed.
func promptLines(prompt string) map[string]bool {
	lines := map[string]bool{}
	for _, line := range strings.Split(prompt, "\n") {
		if t := strings.TrimSpace(line); t != "" {
			lines[t] = true
		}
	}
	return lines
}
