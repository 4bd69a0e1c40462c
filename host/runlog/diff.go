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

// DiffPrompts is the Diff of the prompts of records a and b of a run,
// each read whole up to limit bytes (files.RecordedPromptLimit at most).
func DiffPrompts(runDir string, a, b int, limit int64) (string, error) {
	var prompts [2]string
	for i, n := range []int{a, b} {
		data, err := readPrompt(runDir, n, limit)
		if err != nil {
			return "", err
		}
		prompts[i] = string(data)
	}
	return Diff(prompts[0], prompts[1]), nil
}

type edit struct {
	kind byte // ' ', '-', '+'
	text string
	line int // in b, or where in b a removed line was
}

// maxTable bounds the table script builds: past it, the middle that
// differs is shown as removed and added whole rather than take gigabytes.
const maxTable = 4_000_000

// script is a shortest edit script from x to y: the common start and end
// are kept as they are, and the middle goes by the longest common
// subsequence of its lines, O(n·m) in time and memory, which prompts
// afford (a middle too large for it is replaced whole).
func script(x, y []string) []edit {
	pre := 0
	for pre < len(x) && pre < len(y) && x[pre] == y[pre] {
		pre++
	}
	suf := 0
	for suf < len(x)-pre && suf < len(y)-pre && x[len(x)-1-suf] == y[len(y)-1-suf] {
		suf++
	}
	var ops []edit
	for i := 0; i < pre; i++ {
		ops = append(ops, edit{' ', x[i], i + 1})
	}
	middle := lcsScript(x[pre:len(x)-suf], y[pre:len(y)-suf], pre)
	ops = append(ops, middle...)
	for i := 0; i < suf; i++ {
		j := len(y) - suf + i
		ops = append(ops, edit{' ', y[j], j + 1})
	}
	return ops
}

// lcsScript is the edit script of the middle; offset is where it starts
// in y.
func lcsScript(x, y []string, offset int) []edit {
	n, m := len(x), len(y)
	if n*m > maxTable {
		var ops []edit
		for _, l := range x {
			ops = append(ops, edit{'-', l, offset + 1})
		}
		for j, l := range y {
			ops = append(ops, edit{'+', l, offset + j + 1})
		}
		return ops
	}
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
			ops = append(ops, edit{' ', x[i], offset + j + 1})
			i, j = i+1, j+1
		case i < n && (j == m || lcs[i+1][j] >= lcs[i][j+1]):
			ops = append(ops, edit{'-', x[i], offset + j + 1})
			i++
		default:
			ops = append(ops, edit{'+', y[j], offset + j + 1})
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
