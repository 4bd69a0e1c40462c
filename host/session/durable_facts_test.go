package session

import (
	"reflect"
	"testing"
)

// TestFactsComparedOnlyWhenBothHaveThem: a journal written before a
// loop's prompt digests and branch were recorded still resumes; once
// both sides have a fact, a change of it is named.
func TestFactsComparedOnlyWhenBothHaveThem(t *testing.T) {
	old := []string{"Max Iterations: 5"}
	now := []string{"Max Iterations: 5", "Prompt (act phase): bbb", "Git Branch: main"}
	if got := changedSettings(old, now); len(got) != 0 {
		t.Errorf("an old journal against facts: %q, want none", got)
	}
	if got := changedSettings(now, old); len(got) != 0 {
		t.Errorf("facts against none asked: %q, want none", got)
	}
	edited := []string{"Max Iterations: 5", "Prompt (act phase): ccc", "Git Branch: other"}
	want := []string{"Prompt (act phase): bbb recorded, ccc asked", "Git Branch: main recorded, other asked"}
	if got := changedSettings(now, edited); !reflect.DeepEqual(got, want) {
		t.Errorf("changed facts: %q, want %q", got, want)
	}
}
