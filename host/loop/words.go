package loop

import (
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"
)

// What of a failed iteration's output its warning repeats: the agent's
// last few lines are most often why it failed, in its own words ("Not
// logged in · Please run /login"), which the exit code cannot say.
const (
	lastLineCount = 3
	lastLineWidth = 200
	// lastLineScan bounds how far back the lines are looked for: the
	// output kept may be megabytes of which only the end matters.
	lastLineScan = 64 << 10
)

// ansiEscape matches the terminal escapes some CLIs colour their output
// with even when it is a pipe (opencode).
var ansiEscape = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(\x07|\x1b\\)`)
})

// stackFrame matches a frame of a JavaScript stack trace, as node prints
// it under an error ("at retryWithBackoff (file:///…/chunk.js:308039:23)"):
// where the CLI was, never why it failed.
var stackFrame = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^at (?:async )?\S.*:\d+:\d+\)?$`) })

// LastLines are the last n non-blank lines of out that are not stack
// frames, oldest first, each cleaned of terminal escapes and cut to width
// characters.
func LastLines(out []byte, n, width int) []string {
	rest := string(out[max(0, len(out)-lastLineScan):])
	var lines []string
	for len(lines) < n && rest != "" {
		i := strings.LastIndexByte(rest, '\n')
		line := rest[i+1:]
		rest = rest[:max(i, 0)]
		if line = PlainLine(line); line != "" && !stackFrame().MatchString(line) {
			lines = append(lines, cut(line, width))
		}
	}
	slices.Reverse(lines)
	return lines
}

// PlainLine is a line as a terminal would have left it: without escapes,
// only what follows its last carriage return (a progress bar redrawn),
// valid UTF-8, without surrounding space.
func PlainLine(line string) string {
	line = strings.TrimRight(line, " \t\r")
	if i := strings.LastIndexByte(line, '\r'); i >= 0 {
		line = line[i+1:]
	}
	line = ansiEscape().ReplaceAllString(line, "")
	return strings.TrimSpace(strings.ToValidUTF8(line, "\uFFFD"))
}

// cut shortens s to width characters, marking the cut.
func cut(s string, width int) string {
	if utf8.RuneCountInString(s) <= width {
		return s
	}
	return string([]rune(s)[:width]) + "…"
}
