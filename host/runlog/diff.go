package runlog

import (
	"fmt"
	"strings"
)

// Diff shows how text b differs from a, line by line: "-" for a line only
// in a, "+" for one only in b, with up to two lines of context around
// each change and "@@ line N @@" where a change starts.
func Diff(a, b string) string {
	x, y := strings.Split(a, "\n"), strings.Split(b, "\n")
	ops := script(x, y)
	var out strings.Builder
	last := -10
	for i, op := range ops {
		if op.kind == ' ' && !nearChange(ops, i, 2) {
			continue
		}
		if i > last+1 {
			fmt.Fprintf(&out, "@@ line %d @@\n", op.line)
		}
		fmt.Fprintf(&out, "%c %s\n", op.kind, op.text)
		last = i
	}
	return out.String()
}

type edit struct {
	kind byte // ' ', '-', '+'
	text string
	line int // in b, or where in b a removed line was
}

// script is a shortest edit script from x to y, by the longest common
// subsequence of their lines: prompts are small, so O(n·m) is fine.
func script(x, y []string) []edit {
	n, m := len(x), len(y)
	lcs := make([][]int, n+1)
	for i := range lcs {
		lcs[i] = make([]int, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if x[i] == y[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var ops []edit
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && x[i] == y[j]:
			ops = append(ops, edit{' ', x[i], j + 1})
			i, j = i+1, j+1
		case i < n && (j == m || lcs[i+1][j] >= lcs[i][j+1]):
			ops = append(ops, edit{'-', x[i], j + 1})
			i++
		default:
			ops = append(ops, edit{'+', y[j], j + 1})
			j++
		}
	}
	return ops
}

func nearChange(ops []edit, i, width int) bool {
	for k := max(0, i-width); k <= min(len(ops)-1, i+width); k++ {
		if ops[k].kind != ' ' {
			return true
		}
	}
	return false
}
