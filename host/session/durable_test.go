package session

import (
	"slices"
	"testing"
)

// TestChangedSettings: what makes a resumed loop another loop is a
// setting that changes what it does: one changed, one given only now, and
// one the resume no longer gives (named, so that the user can give it
// again). A setting that only changes what the run shows (-v: the agent's
// output streamed; -q: the log level) is no change: a resume may give it anew.
func TestChangedSettings(t *testing.T) {
	recorded := []string{"AI Command: fake", "Max Iterations: 8", "Failure Threshold: 3", "Log Level: info", "Show AI Output: false"}
	for _, c := range []struct {
		name  string
		asked []string
		want  []string
	}{
		{"the same", recorded, nil},
		{"-v", []string{"AI Command: fake", "Max Iterations: 8", "Failure Threshold: 3", "Log Level: info", "Show AI Output: true"}, nil},
		{"-q", []string{"AI Command: fake", "Max Iterations: 8", "Failure Threshold: 3", "Log Level: warn", "Show AI Output: false"}, nil},
		{"shown-only settings not given", []string{"AI Command: fake", "Max Iterations: 8", "Failure Threshold: 3"}, nil},
		{"a shown-only setting given anew", append(slices.Clone(recorded), "Log Format: json"), nil},
		{"a flag dropped", []string{"AI Command: fake", "Max Iterations: 8", "Log Level: info", "Show AI Output: false"}, []string{"Failure Threshold: 3 recorded, not set now"}},
		{"a value changed", []string{"AI Command: fake", "Max Iterations: 4", "Failure Threshold: 3", "Log Level: info", "Show AI Output: false"}, []string{"Max Iterations: 8 recorded, 4 asked"}},
		{"a flag added", append(slices.Clone(recorded), "Idle Timeout: 1m"), []string{"Idle Timeout: not set recorded, 1m asked"}},
	} {
		if got := changedSettings(recorded, c.asked); !slices.Equal(got, c.want) {
			t.Errorf("%s: changed %q, want %q", c.name, got, c.want)
		}
	}
}
