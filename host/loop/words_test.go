package loop

import (
	"fmt"
	"strings"
	"testing"
)

// TestLastLines: the last non-blank lines, oldest first, without
// terminal escapes or a redrawn progress bar, each cut to its width.
func TestLastLines(t *testing.T) {
	long := strings.Repeat("é", 250)
	for _, tc := range []struct {
		out  string
		want []string
	}{
		{"", nil},
		{"\n\n  \n", nil},
		{"one\ntwo\n", []string{"one", "two"}},
		{"a\nb\n\nc\n\n\nd", []string{"b", "c", "d"}},
		{"\x1b[31mError:\x1b[0m Not logged in\r\n", []string{"Error: Not logged in"}},
		{"10%\r50%\r100% done\n", []string{"100% done"}},
		{long + "\n", []string{strings.Repeat("é", 200) + "…"}},
		{"bad \xff byte\n", []string{"bad \uFFFD byte"}},
	} {
		if got := LastLines([]byte(tc.out), 3, 200); fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("%q: %q, want %q", tc.out, got, tc.want)
		}
	}
}
