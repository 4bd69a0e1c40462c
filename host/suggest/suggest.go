// Package suggest finds the candidate a user most likely meant when a name
// they typed is unknown: the "did you mean" of rooda's error messages.
package suggest

import "strings"

// Closest returns the candidate the user most likely meant by word, or ""
// when none is close enough to be a plausible typo. Names made of words
// (max_iterations, read-specs.md) are also compared word by word, so a
// typo inside one word does not lose to a shorter name that happens to be
// fewer edits away: max_iteraton means default_max_iterations, which holds
// both its words, not min_iterations. The candidate that accounts for the
// most of word's letters wins; ties go to the earlier candidate, so the
// answer is deterministic for a given order.
func Closest(word string, candidates []string) string {
	best, bestScore := "", 0
	for _, c := range candidates {
		score, ok := match(word, c)
		if ok && (best == "" || score > bestScore) {
			best, bestScore = c, score
		}
	}
	return best
}

// match scores candidate as what word meant: the letters of word it
// accounts for, whole or word by word, whichever is more. It is no match
// when the whole is too many edits away and the words it shares are less
// than half of word.
func match(word, candidate string) (score int, ok bool) {
	w, c := strings.ToLower(word), strings.ToLower(candidate)
	typed := len(letters(w))
	score = -1 << 30
	if d := distance(w, c); d <= threshold(w, c) {
		score, ok = typed-d, true
	}
	if shared := sharedWords(w, c); 2*shared > typed {
		score, ok = max(score, shared), true
	}
	return score, ok
}

// sharedWords is how many of typed's letters the words of candidate
// account for: each word of typed is paired with the nearest unpaired word
// of candidate within a typo of it, and counts its length less the edits.
func sharedWords(typed, candidate string) int {
	available := words(candidate)
	total := 0
	for _, t := range words(typed) {
		best, bestScore := -1, 0
		for i, c := range available {
			d := distance(t, c)
			if d > threshold(t, c) {
				continue
			}
			if s := len(t) - d; best < 0 || s > bestScore {
				best, bestScore = i, s
			}
		}
		if best >= 0 && bestScore > 0 {
			total += bestScore
			available = append(available[:best], available[best+1:]...)
		}
	}
	return total
}

// words splits a name at the characters that join words in names:
// "default_max_iterations", "plan-work", "read_specs.md".
func words(name string) []string {
	return strings.FieldsFunc(name, func(r rune) bool {
		return r == '_' || r == '-' || r == '.' || r == ' ' || r == '/' || r == ':'
	})
}

// letters is name without the characters that join its words.
func letters(name string) string { return strings.Join(words(name), "") }

// threshold allows about one edit in three, at least one: "obsrve" is a
// typo of "observe", "act" is not one of "orient".
func threshold(word, candidate string) int {
	n := max(len(word), len(candidate))
	return max(1, n/3)
}

// distance is the optimal-string-alignment distance between a and b,
// counted in bytes: Levenshtein's insertions, deletions and substitutions,
// plus the swap of two neighbours, the commonest typo ("biuld").
func distance(a, b string) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}

// OneOf lists choices as a sentence says them: "a", "a or b", "a, b or c".
func OneOf(choices []string) string {
	if len(choices) <= 1 {
		return strings.Join(choices, "")
	}
	return strings.Join(choices[:len(choices)-1], ", ") + " or " + choices[len(choices)-1]
}
