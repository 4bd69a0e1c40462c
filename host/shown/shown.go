// Package shown makes text that comes from outside rooda — a workspace's
// configuration, a run's record, the names of an agent's processes and
// files — fit to be shown to a person: safe on a terminal, and short.
//
// Safe: a terminal obeys the control characters it is sent. A procedure's
// summary holding ESC[2J clears the screen of whoever runs rooda list;
// OSC 52 writes their clipboard; OSC 0 retitles their window. Line and
// Text write every control character visibly instead, as Go writes it in
// a quoted string ("\x1b"), so the reader sees that it is there and what
// it is, and the terminal obeys nothing.
//
// Short: a list of what an agent changed or left running may hold tens of
// thousands of names. List gives the first few and a count of the rest.
package shown

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Line is s made safe for one line of a terminal: every control
// character, the line breaks and tabs among them, written as an escape
// ("\x1b", "\n", "\u009b"), as are bytes that are not UTF-8. For a field
// that is one line (a name, a summary), so that it cannot pass for
// another line either.
func Line(s string) string { return escape(s, false) }

// Text is s made safe for a terminal as text of several lines: as Line,
// but its newlines and tabs kept, for text printed as lines on purpose (a
// description, a log, a report).
func Text(s string) string { return escape(s, true) }

func escape(s string, keepLines bool) string {
	if safe(s, keepLines) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case !control(r) || keepLines && (r == '\n' || r == '\t'):
			b.WriteString(s[i : i+size])
		default:
			b.WriteString(controlEscape(r))
		}
		i += size
	}
	return b.String()
}

// safe reports whether s has nothing to escape, the common case, which
// costs no copy.
func safe(s string, keepLines bool) bool {
	for _, r := range s {
		if r == utf8.RuneError || control(r) && !(keepLines && (r == '\n' || r == '\t')) {
			return false
		}
	}
	return true
}

// control reports whether a terminal may act on r: the C0 controls
// (ESC among them), DEL, and the C1 controls, which a terminal may take
// as ESC and a letter (U+009B is CSI).
func control(r rune) bool { return r < 0x20 || r >= 0x7f && r < 0xa0 }

// controlEscape writes a control character as a quoted Go string does.
func controlEscape(r rune) string {
	quoted := strconv.QuoteRune(r)
	return quoted[1 : len(quoted)-1]
}

// JSON is a JSON document made safe for a terminal without changing what
// it says: encoding/json escapes the C0 controls but writes DEL and the C1
// controls as they are; here they are escaped too ("\u009b"). They can
// only be inside strings, where the escape means the same character.
func JSON(data []byte) []byte {
	if safe(string(data), true) {
		return data
	}
	var b strings.Builder
	for _, r := range string(data) {
		if control(r) && r >= 0x7f {
			fmt.Fprintf(&b, `\u%04x`, r)
			continue
		}
		b.WriteRune(r)
	}
	return []byte(b.String())
}

// List writes names one after the other, separated by ", ", each on its
// one line (Line: a file named "x\nChecks: passed" cannot pass for a line
// of its own), the first limit of them, and then how many more there are,
// counted in noun ("files"): "a.go, b.go … and 49,800 more files".
func List(names []string, limit int, noun string) string {
	return ListOf(names, 0, limit, noun)
}

// ListOf is List of names and more others, which were never named: a list
// that was itself bounded where it was made.
func ListOf(names []string, more, limit int, noun string) string {
	shownNames := make([]string, 0, min(len(names), limit))
	for _, name := range names[:min(len(names), limit)] {
		shownNames = append(shownNames, Line(name))
	}
	list := strings.Join(shownNames, ", ")
	if rest := max(len(names)-limit, 0) + more; rest > 0 {
		return list + " … and " + Thousands(int64(rest)) + " more " + noun
	}
	return list
}

// Thousands writes n with commas between groups of three digits: 12,450.
func Thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// Wrap breaks text into lines of at most width characters, at spaces.
func Wrap(text string, width int) string {
	var lines []string
	for _, para := range strings.Split(text, "\n") {
		line := ""
		for _, word := range strings.Fields(para) {
			if line != "" && len(line)+1+len(word) > width {
				lines = append(lines, line)
				line = ""
			}
			if line != "" {
				line += " "
			}
			line += word
		}
		lines = append(lines, line)
	}
	return strings.Join(lines, "\n")
}
