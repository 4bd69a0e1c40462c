package suggest

import "testing"

func TestClosest(t *testing.T) {
	phases := []string{"observe", "orient", "decide", "act"}
	tests := []struct {
		word       string
		candidates []string
		want       string
	}{
		{"obsrve", phases, "observe"},
		{"OBSERVE", phases, "observe"},
		{"decdie", phases, "decide"},
		{"ac", phases, "act"},
		{"plan", phases, ""},
		{"", phases, ""},
		{"read_spec.md", []string{"read_specs.md", "read_impl.md"}, "read_specs.md"},
		{"missing.md", []string{"read_specs.md", "read_impl.md"}, ""},
		{"x", nil, ""},
		{"biuld", []string{"build", "list"}, "build"},
		// Word by word: a typo inside a word of a longer name beats a
		// shorter name fewer edits away; words may come in any order;
		// sharing one short word of several is not enough.
		{"max_iteraton", []string{"min_iterations", "default_max_iterations"}, "default_max_iterations"},
		{"timeout_iteration", []string{"iteration_mode", "iteration_timeout"}, "iteration_timeout"},
		{"spec", []string{"read_impl.md", "read_specs.md"}, "read_specs.md"},
		{"plan-wrok", []string{"build", "plan-work", "plan"}, "plan-work"},
		{"summary_notes.md", []string{"read_specs.md", "read_impl.md"}, ""},
		{"max_turns", []string{"default_max_iterations", "min_iterations"}, ""},
	}
	for _, tc := range tests {
		if got := Closest(tc.word, tc.candidates); got != tc.want {
			t.Errorf("Closest(%q, %q) = %q, want %q", tc.word, tc.candidates, got, tc.want)
		}
	}
}

func TestDistance(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"abc", "", 3},
		{"", "abc", 3},
		{"kitten", "sitting", 3},
		{"flaw", "lawn", 2},
		{"same", "same", 0},
		{"biuld", "build", 1},
		{"ab", "ba", 1},
		{"ca", "abc", 3},
	}
	for _, tc := range tests {
		if got := distance(tc.a, tc.b); got != tc.want {
			t.Errorf("distance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}
