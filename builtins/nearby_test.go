package builtins

import "testing"

func TestLongestPrefixIn(t *testing.T) {
	for _, tc := range []struct {
		text, needle string
		want         int
	}{
		{"abc", "xyz", 0},
		{"Iteration: 1 of 5", "Iteration: 2 of 5", len("Iteration: ")},
		{"abc", "abc", 3},
		{"a═b", "a═c", len("a═")},
		{"a═b", "a╗c", 1}, // the two share a first byte, not a character
	} {
		if got := longestPrefixIn(tc.text, tc.needle); got != tc.want {
			t.Errorf("longestPrefixIn(%q, %q) = %d, want %d", tc.text, tc.needle, got, tc.want)
		}
	}
}

func TestExcerptCutsWholeCharacters(t *testing.T) {
	text := ""
	for range 100 {
		text += "═"
	}
	got := excerpt(text, 150, 0)
	want := `…"` + text[108:231] + `"…` // whole characters around bytes 110 to 230
	if got != want {
		t.Errorf("excerpt = %s, want %s", got, want)
	}
}
