// Package suggest finds the candidate a user most likely meant when a name
// they typed is unknown: the "did you mean" of rooda's error messages.
package suggest

import "strings"

// Closest returns the candidate nearest to word by edit distance, or "" when
// none is close enough to be a plausible typo. Ties go to the earlier
// candidate, so the answer is deterministic for a given order.
func Closest(word string, candidates []string) string {
	best, bestDist := "", -1
	for _, c := range candidates {
		d := distance(strings.ToLower(word), strings.ToLower(c))
		if d > threshold(word, c) {
			continue
		}
		if bestDist < 0 || d < bestDist {
			best, bestDist = c, d
		}
	}
	return best
}

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
