package builtins

import (
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"
)

// nearbyWidth is about how much of a long text a failed assertion shows:
// enough for a line or two around the place that went wrong.
const nearbyWidth = 120

// nearestPart says where in text the needle, which is not there, came
// closest: the longest start of the needle that text holds, and the text
// around it. Showing the text's first bytes instead would show the same
// banner for every prompt.
func nearestPart(text, needle string) string {
	n := longestPrefixIn(text, needle)
	if n == 0 {
		return fmt.Sprintf("no part of it is there; the text begins %s", excerpt(text, 0, 0))
	}
	at := strings.Index(text, needle[:n])
	return fmt.Sprintf("its longest start found, %q, is at line %d: %s", needle[:n], lineOf(text, at), excerpt(text, at, n))
}

// longestPrefixIn is the length of the longest prefix of needle that text
// contains, whole characters only. A prefix found means every shorter one
// is there too, so the length is searched for by halves.
func longestPrefixIn(text, needle string) int {
	n := sort.Search(len(needle), func(k int) bool {
		return !strings.Contains(text, needle[:k+1])
	})
	for n > 0 && n < len(needle) && !utf8.RuneStart(needle[n]) {
		n--
	}
	return n
}

// excerpt quotes about nearbyWidth bytes of text around text[at:at+n]: a
// third before it, the rest after, cut at whole characters, with "…"
// where the text goes on.
func excerpt(text string, at, n int) string {
	start := max(0, at-nearbyWidth/3)
	end := min(len(text), max(at+n, start+nearbyWidth))
	for start > 0 && !utf8.RuneStart(text[start]) {
		start--
	}
	for end < len(text) && !utf8.RuneStart(text[end]) {
		end++
	}
	s := fmt.Sprintf("%q", text[start:end])
	if start > 0 {
		s = "…" + s
	}
	if end < len(text) {
		s += "…"
	}
	return s
}

// lineOf is the line, counted from 1, of text's byte at.
func lineOf(text string, at int) int { return strings.Count(text[:at], "\n") + 1 }

// firstDifference says where two long texts that should be equal part:
// the line and the text of each around it, not their common beginnings.
func firstDifference(got, want string) string {
	at := 0
	for at < len(got) && at < len(want) && got[at] == want[at] {
		at++
	}
	for at > 0 && ((at < len(got) && !utf8.RuneStart(got[at])) || (at < len(want) && !utf8.RuneStart(want[at]))) {
		at--
	}
	return fmt.Sprintf("they differ from line %d: got %s, want %s", lineOf(got, at), excerpt(got, at, 0), excerpt(want, at, 0))
}
