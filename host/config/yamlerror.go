package config

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// yaml.v3 reports a syntax error as text, with a line number at best and
// never a column. syntaxError turns that text into rooda's form,
// "file:line:col: message" or "file:line: message", finding the position
// in the source itself where yaml.v3 gives none and correcting the line
// where yaml.v3 gives a wrong one.
func (d *decoder) syntaxError(err error, data []byte) error {
	pos, msg := locateYAMLError(strings.TrimPrefix(err.Error(), "yaml: "), data)
	if pos.line == 0 {
		return fmt.Errorf("%s: %s", d.label(), msg)
	}
	if pos.col == 0 {
		return fmt.Errorf("%s:%d: %s", d.label(), pos.line, msg)
	}
	return fmt.Errorf("%s:%d:%d: %s", d.label(), pos.line, pos.col, msg)
}

// position is a 1-based place in a file; 0 is unknown.
type position struct{ line, col int }

var (
	// yamlLine matches yaml.v3's "line N: " prefix.
	yamlLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^line (\d+): `) })
	// unknownAnchor matches yaml.v3's message for an alias with no anchor.
	unknownAnchor = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^unknown anchor '(.*)' referenced$`) })
)

// parserProblems are the messages of yaml.v3's parser (as opposed to its
// scanner). For these yaml.v3 prints a 0-based line: one less than the
// line meant.
var parserProblems = map[string]bool{
	"did not find expected ',' or ']'":       true,
	"did not find expected ',' or '}'":       true,
	"did not find expected '-' indicator":    true,
	"did not find expected <document start>": true,
	"did not find expected <stream-start>":   true,
	"did not find expected key":              true,
	"did not find expected node content":     true,
	"found duplicate %TAG directive":         true,
	"found duplicate %YAML directive":        true,
	"found incompatible YAML document":       true,
	"found undefined tag handle":             true,
}

// readerProblems are the messages of yaml.v3's reader, which checks the
// characters before any parsing, and never says where.
var readerProblems = map[string]bool{
	"control characters are not allowed": true,
	"invalid leading UTF-8 octet":        true,
	"incomplete UTF-8 octet sequence":    true,
	"invalid trailing UTF-8 octet":       true,
	"invalid length of a UTF-8 sequence": true,
	"invalid Unicode character":          true,
}

// locateYAMLError returns where yaml.v3's message msg about data points,
// and the message to show.
func locateYAMLError(msg string, data []byte) (position, string) {
	if m := yamlLine().FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		msg = msg[len(m[0]):]
		if parserProblems[msg] {
			line++
		}
		return position{line: line}, withHint(msg, data, line)
	}
	if readerProblems[msg] {
		if pos, what, ok := firstBadCharacter(data); ok {
			return pos, what
		}
		return position{}, msg
	}
	if m := unknownAnchor().FindStringSubmatch(msg); m != nil {
		name := m[1]
		return findAlias(data, name), fmt.Sprintf("*%s refers to no anchor; define it first with &%s", name, name)
	}
	if strings.HasPrefix(msg, "attempted to go past the end") {
		return position{}, msg
	}
	// Every other message comes from the scanner or the parser, whose
	// line yaml.v3 leaves out when it is the first.
	return position{line: 1}, withHint(msg, data, 1)
}

// withHint adds what yaml.v3's message leaves unsaid, where the line it
// points at shows the likely cause.
func withHint(msg string, data []byte, n int) string {
	line, ok := lineOf(data, n)
	indent := line[:len(line)-len(bytes.TrimLeft(line, " \t"))]
	switch {
	case !ok:
		return msg + " at the end of the file (is a bracket or a quote never closed?)"
	case bytes.ContainsRune(indent, '\t'):
		return msg + " (YAML indents with spaces, not tabs)"
	case msg == "found unexpected end of stream":
		// yaml.v3 says this only while scanning a quoted scalar, and its
		// line is where the scalar starts.
		return msg + " (a quoted string that starts on this line is never closed)"
	}
	return msg
}

// lineOf returns line n (1-based) of data, without its end, and whether
// data has that line.
func lineOf(data []byte, n int) ([]byte, bool) {
	for i := 1; len(data) > 0; i++ {
		line, rest, _ := bytes.Cut(data, []byte("\n"))
		if i == n {
			return bytes.TrimSuffix(line, []byte("\r")), true
		}
		data = rest
	}
	return nil, false
}

// firstBadCharacter finds the first character YAML does not allow: bytes
// that are not UTF-8, or a control character. A file that starts with a
// UTF-16 byte order mark yaml.v3 reads as UTF-16: this does not look there.
func firstBadCharacter(data []byte) (position, string, bool) {
	if bytes.HasPrefix(data, []byte{0xFF, 0xFE}) || bytes.HasPrefix(data, []byte{0xFE, 0xFF}) {
		return position{}, "", false
	}
	pos := position{line: 1, col: 1}
	for len(data) > 0 {
		r, size := utf8.DecodeRune(data)
		switch {
		case r == utf8.RuneError && size == 1:
			return pos, fmt.Sprintf("invalid UTF-8 (byte 0x%02X); save the file as UTF-8", data[0]), true
		case !yamlPrintable(r):
			kind := "character"
			if unicode.IsControl(r) {
				kind = "control character"
			}
			return pos, fmt.Sprintf("%s U+%04X is not allowed in YAML; remove it, or write it as %q inside double quotes", kind, r, string(r)), true
		}
		pos.col++
		if r == '\n' {
			pos = position{line: pos.line + 1, col: 1}
		}
		data = data[size:]
	}
	return position{}, "", false
}

// yamlPrintable reports whether YAML 1.2 allows r in a file: tab, line
// ends and printable characters (its c-printable production).
func yamlPrintable(r rune) bool {
	switch {
	case r == '\t', r == '\n', r == '\r', r == 0x85:
		return true
	case r >= 0x20 && r <= 0x7E, r >= 0xA0 && r <= 0xD7FF, r >= 0xE000 && r <= 0xFFFD:
		return true
	}
	return r >= 0x10000 && r <= unicode.MaxRune
}

// findAlias returns where the alias *name is first used in data, skipping
// comments; unknown if it is nowhere to be seen.
func findAlias(data []byte, name string) position {
	alias := "*" + name
	for i, line := range strings.Split(string(data), "\n") {
		line = withoutComment(line)
		for from := 0; ; {
			at := strings.Index(line[from:], alias)
			if at < 0 {
				break
			}
			at += from
			end := at + len(alias)
			if (at == 0 || strings.ContainsRune(" \t[{,:-", rune(line[at-1]))) &&
				(end == len(line) || strings.ContainsRune(" \t]},\r", rune(line[end]))) {
				return position{line: i + 1, col: utf8.RuneCountInString(line[:at]) + 1}
			}
			from = at + 1
		}
	}
	return position{}
}

// withoutComment cuts a "#" comment from a line: a "#" that begins the
// line or follows a space.
func withoutComment(line string) string {
	for i := 0; i < len(line); i++ {
		if line[i] == '#' && (i == 0 || line[i-1] == ' ' || line[i-1] == '\t') {
			return line[:i]
		}
	}
	return line
}
