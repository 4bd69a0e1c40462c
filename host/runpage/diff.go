package runpage

import "strings"

// diffLine is a line of runlog.Diff's output with the class it is shown
// with: "add", "del", "hunk" or "" for context.
type diffLine struct {
	Class, Text string
}

// diffLines splits what runlog.Diff wrote into its lines, classed by the
// mark it gave each.
func diffLines(diff string) []diffLine {
	var lines []diffLine
	for line := range strings.Lines(diff) {
		line = strings.TrimSuffix(line, "\n")
		class := ""
		switch {
		case strings.HasPrefix(line, "+ "):
			class = "add"
		case strings.HasPrefix(line, "- "):
			class = "del"
		case strings.HasPrefix(line, "@@ "):
			class = "hunk"
		}
		lines = append(lines, diffLine{class, line})
	}
	return lines
}
