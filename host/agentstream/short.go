package agentstream

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
)

// Widths of the one-line forms of a tool's arguments and result.
const (
	argsWidth   = 120
	resultWidth = 100
)

// argKeys are the arguments that say what a tool call does, most telling
// first: a shell command, a file, a search, a URL.
var argKeys = []string{"command", "cmd", "file_path", "filePath", "absolute_path", "path", "pattern", "query", "url", "description", "prompt"}

// shortArgs is a tool's arguments, a JSON object, as one short line: the
// most telling argument alone, or else the compact JSON.
func shortArgs(raw json.RawMessage) string {
	var args map[string]json.RawMessage
	if json.Unmarshal(raw, &args) == nil {
		for _, k := range argKeys {
			if v, ok := args[k]; ok {
				if s := jsonText(v); s != "" {
					return oneLine(s, argsWidth)
				}
			}
		}
		if len(args) == 0 {
			return ""
		}
	}
	return oneLine(jsonText(raw), argsWidth)
}

// jsonText is a JSON value as text: a string's contents, an array of
// strings joined by spaces (a command's argv), anything else compacted.
func jsonText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var list []string
	if json.Unmarshal(raw, &list) == nil {
		return strings.Join(list, " ")
	}
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return ""
	}
	return b.String()
}

// shortResult is a tool's output as one line: its first non-blank line,
// and how many more lines there are.
func shortResult(s string) string {
	s = strings.TrimSpace(s)
	first, rest, more := strings.Cut(s, "\n")
	line := oneLine(first, resultWidth)
	// A refusal cut off the line is said all the same: a write the
	// sandbox refused must show in the transcript.
	if why := refusal(s); why != "" && refusal(line) == "" {
		line += " [" + why + "]"
	}
	if more {
		if n := strings.Count(rest, "\n") + 1; n == 1 {
			line += " (+1 line)"
		} else {
			line += " (+" + strconv.Itoa(n) + " lines)"
		}
	}
	return line
}

// refusals are what a tool's output says when the system refused it a
// file or a process: a sandbox's refusals (EACCES, EPERM, EROFS) among
// them, as strerror words them.
var refusals = []string{"Permission denied", "Operation not permitted", "Read-only file system"}

// refusal is the first of the refusals s says, in any case (zsh, the
// shell claude picks when SHELL is unset, writes "permission denied:
// FILE"), "" if none.
func refusal(s string) string {
	lower := strings.ToLower(s)
	for _, why := range refusals {
		if strings.Contains(lower, strings.ToLower(why)) {
			return why
		}
	}
	return ""
}

// oneLine puts s on one line (newlines and tabs become spaces, runs of
// spaces one) of at most width characters, an ellipsis ending a cut.
func oneLine(s string, width int) string {
	s = clip(s, 8*width) // no need to look at more of a long text
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > width {
		return string(r[:width-1]) + "…"
	}
	return s
}
