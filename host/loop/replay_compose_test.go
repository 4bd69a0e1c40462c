package loop

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"rooda/host/prompt"
)

// TestReplayComposesOnlyWhatAScriptSees: an iteration replayed with
// NoCompose (a YAML procedure's, which no context function sees) has no
// prompt composed again; one without it (a script's) is composed again,
// as its context function must run; the live iteration after them is
// composed either way. The counts come out the same.
func TestReplayComposesOnlyWhatAScriptSees(t *testing.T) {
	for _, noCompose := range []bool{true, false} {
		var log strings.Builder
		s := &script{steps: []step{{out: "live", took: time.Second}}}
		cfg := s.config(3, 3, &log)
		replay := replayOf([]Reply{reply("one", 0, 10), reply("two", 0, 10)}, 0)
		cfg.Replay = func(n int) Replayed {
			rep := replay(n)
			rep.NoCompose = noCompose && rep.Ended
			return rep
		}
		var composed []int
		cfg.Prompt = func(it prompt.Iteration) (string, error) {
			composed = append(composed, it.Number)
			return "prompt", nil
		}
		res := Run(context.Background(), cfg)
		want := "[1 2 3]"
		if noCompose {
			want = "[3]"
		}
		if got := fmt.Sprint(composed); got != want {
			t.Errorf("NoCompose %v: prompts composed for iterations %v, want %s", noCompose, composed, want)
		}
		if s.calls != 1 || res.Iterations != 3 || res.Spent.Tokens.Input != 20 {
			t.Errorf("NoCompose %v: %d agent calls, result %+v", noCompose, s.calls, res)
		}
	}
}
