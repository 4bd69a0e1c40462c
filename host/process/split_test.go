package process

import (
	"slices"
	"strings"
	"testing"
)

func TestSplit(t *testing.T) {
	tests := []struct {
		line string
		want []string
		err  string
	}{
		{"claude -p --dangerously-skip-permissions", []string{"claude", "-p", "--dangerously-skip-permissions"}, ""},
		{"  codex\texec  - ", []string{"codex", "exec", "-"}, ""},
		{`agent --msg 'two words' "and \"more\"" a\ b`, []string{"agent", "--msg", "two words", `and "more"`, "a b"}, ""},
		{`x "a\nb" '$HOME' "$HOME"`, []string{"x", `a\nb`, "$HOME", "$HOME"}, ""},
		{`x ""`, []string{"x", ""}, ""},
		{`x '' y`, []string{"x", "", "y"}, ""},
		{"a'b'c", []string{"abc"}, ""},
		{"", nil, "command is empty"},
		{"   ", nil, "command is empty"},
		{"x 'open", nil, "unterminated ' quote"},
		{`x "open`, nil, `unterminated " quote`},
		{`x \`, nil, "lone backslash"},
	}
	for _, tc := range tests {
		got, err := Split(tc.line)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("Split(%q) error %v, want %q", tc.line, err, tc.err)
			}
			continue
		}
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("Split(%q) = %q, %v; want %q", tc.line, got, err, tc.want)
		}
	}
}

func FuzzSplit(f *testing.F) {
	for _, s := range []string{"a b", `a "b c" 'd'`, `\`, `"\"`, "'", "x\\ y"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		words, err := Split(line)
		if err == nil && len(words) == 0 {
			t.Fatalf("Split(%q) gave no words and no error", line)
		}
	})
}
