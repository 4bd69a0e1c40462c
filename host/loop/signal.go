package loop

import (
	"bytes"
	"strings"
	"unicode/utf8"

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
	at := bytes.Index(output, promiseTag)
	if at < 0 {
		return s
	}
	success, failure := tagsOf(promises.SuccessWords()), tagsOf(promises.FailureWords())
	inPrompt := promptLines(text)
	// Only the lines holding a tag are looked at, each found by searching
	// for the tag: an agent that printed megabytes is neither split into
	// lines nor hashed whole to judge the few that matter. Every tag in
	// the line holding at is at or past at.
	for at >= 0 {
		end := lineEnd(output, at)
		if !isEcho(output, at, end, inPrompt) {
			s.Success = s.Success || containsAny(output[at:end], success)
			s.Failure = s.Failure || containsAny(output[at:end], failure)
		}
		if at = bytes.Index(output[end:], promiseTag); at >= 0 {
			at += end
		}
	}
	return s
}

// lineEnd is where the line holding output[i] ends: its newline, or the
// end of the output.
func lineEnd(output []byte, i int) int {
	if nl := bytes.IndexByte(output[i:], '\n'); nl >= 0 {
		return i + nl
	}
	return len(output)
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

// isEcho reports whether the line holding the tag at output[at], which
// ends at end, is a prompt line within a block of them: so is the
// nearest non-blank line before or after it.
func isEcho(output []byte, at, end int, inPrompt promptSet) bool {
	start, ok := inPrompt.lineStart(output, at)
	if !ok || !inPrompt.holds(output[start:end]) {
		return false
	}
	// e is the newline that ends the line before.
	for e := start - 1; e >= 0; {
		s := bytes.LastIndexByte(output[:e], '\n') + 1
		if t := bytes.TrimSpace(output[s:e]); len(t) > 0 {
			if inPrompt.holds(t) {
				return true
			}
			break
		}
		e = s - 1
	}
	// s is where the line after starts.
	for s := end + 1; s <= len(output); {
		e := lineEnd(output, s)
		if t := bytes.TrimSpace(output[s:e]); len(t) > 0 {
			return inPrompt.holds(t)
		}
		s = e + 1
	}
	return false
}

// promptSet is the prompt's non-blank lines, trimmed, and the length of
// the longest: a longer line is none of them, and is not hashed to be
// looked up.
type promptSet struct {
	lines   map[string]bool
	longest int
}

// holds reports whether line, trimmed, is one of the prompt's lines.
func (p promptSet) holds(line []byte) bool {
	t := bytes.TrimSpace(line)
	return len(t) <= p.longest && p.lines[string(t)]
}

// lineStart walks back from the tag at output[at] to the start of its
// line, unless the line, trimmed, is found longer than any of the
// prompt's first: it is none of them then (ok false). Only an ASCII byte
// that is not a space is sure to be kept by the trimming; the tag is.
func (p promptSet) lineStart(output []byte, at int) (start int, ok bool) {
	for i := at - 1; i >= 0; i-- {
		switch c := output[i]; {
		case c == '\n':
			return i + 1, true
		case c < utf8.RuneSelf && !asciiSpace[c] && at+len(promiseTag)-i > p.longest:
			return 0, false
		}
	}
	return 0, true
}

// asciiSpace are the ASCII bytes bytes.TrimSpace trims.
var asciiSpace = [utf8.RuneSelf]bool{'\t': true, '\n': true, '\v': true, '\f': true, '\r': true, ' ': true}

// promptLines are the prompt's non-blank lines, trimmed.
func promptLines(prompt string) promptSet {
	p := promptSet{lines: map[string]bool{}}
	for _, line := range strings.Split(prompt, "\n") {
		if t := strings.TrimSpace(line); t != "" {
			p.lines[t] = true
			p.longest = max(p.longest, len(t))
		}
	}
	return p
}
