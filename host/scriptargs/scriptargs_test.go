package scriptargs

import (
	"fmt"
	"testing"
)

// TestParse: each flag's value is read by its kind, whichever way the
// command line writes it; what is not a flag is left alone; a mistake
// names the flag.
func TestParse(t *testing.T) {
	flags := []Flag{{"n", Int, "3"}, {"agent", String, "claude"}, {"dry_run", Bool, "False"}, {"ratio", Float, "0.5"}}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "map[]"},
		{[]string{"--n=5", "--agent", "codex", "--dry-run"}, "map[agent:codex dry_run:true n:5]"},
		{[]string{"src/auth", "-n", "-2", "--ratio=1e-3", "--dry_run=false"}, "map[dry_run:false n:-2 ratio:0.001]"},
		{[]string{"--n=1", "--n=2"}, "map[n:2]"},
		{[]string{"--agent=codex", "--", "--n=five"}, "map[agent:codex]"},
		{[]string{"--n=five"}, `the script's argument --n: want an int, got "five"`},
		{[]string{"--ratio", "lots"}, `the script's argument --ratio: want a number, got "lots"`},
		{[]string{"--dry-run=maybe"}, `the script's argument --dry-run: want true or false, got "maybe"`},
		{[]string{"--agent"}, "the script's argument --agent needs a value, a str: --agent=claude"},
		{[]string{"--agnet=codex"}, "the script takes no argument --agnet=codex (did you mean --agent?); it takes --n=3, --agent=claude, --dry_run, --ratio=0.5"},
	} {
		got, err := Parse(tc.args, flags)
		text := fmt.Sprint(got)
		if err != nil {
			text = err.Error()
		}
		if text != tc.want {
			t.Errorf("%q: got %s, want %s", tc.args, text, tc.want)
		}
	}
	if _, err := Parse([]string{"--x"}, nil); err == nil || err.Error() != "the script takes no argument --x: it takes no flags" {
		t.Errorf("no flags: %v", err)
	}
}
