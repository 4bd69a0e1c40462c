package prompt

import "testing"

// TestLooksLikePath: a single word with a directory or a file's extension
// is meant as a path; other words, URLs and text with spaces are text.
func TestLooksLikePath(t *testing.T) {
	for word, want := range map[string]bool{
		"notes.md": true, "docs/plan": true, "./notes": true, "go.mod": true, "a.tar.gz": true,
		"TODO": false, "v1.2": false, "e.g.": false, "https://example.com/x.md": false,
		"see docs/plan.md": false, "": false,
	} {
		if got := LooksLikePath(word); got != want {
			t.Errorf("LooksLikePath(%q) = %v, want %v", word, got, want)
		}
	}
}
