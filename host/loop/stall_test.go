package loop

import (
	"context"
	"strings"
	"testing"

	"rooda/host/git"
)

// workspace is a git workspace whose iterations change what changes says,
// one entry per iteration (the last repeats).
type workspace struct {
	changes []git.Changes
	n       int
}

func (w *workspace) Before() {}

func (w *workspace) After() git.Changes {
	c := w.changes[min(w.n, len(w.changes)-1)]
	w.n++
	return c
}

var (
	unchanged = git.Changes{InRepo: true, HeadBefore: "a", HeadAfter: "a"}
	edited    = git.Changes{InRepo: true, HeadBefore: "a", HeadAfter: "a", Files: []string{"main.go"}}
	committed = git.Changes{InRepo: true, HeadBefore: "a", HeadAfter: "b"}
)

// TestStall: the loop ends, stalled, after stall_iterations iterations in
// a row that changed nothing and signaled nothing; a change or a commit
// starts the count again, and every iteration carries its changes.
func TestStall(t *testing.T) {
	for _, tc := range []struct {
		name    string
		changes []git.Changes
		want    Status
		iters   int
	}{
		{"nothing changes", []git.Changes{unchanged}, Stalled, 2},
		{"a file changes in between", []git.Changes{unchanged, edited, unchanged, unchanged}, Stalled, 4},
		{"a commit in between", []git.Changes{unchanged, committed, unchanged, committed}, MaxIters, 5},
		{"not a repository", []git.Changes{{}}, MaxIters, 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var log strings.Builder
			s := &script{steps: []step{{out: "working"}}}
			cfg := s.config(5, 3, &log)
			cfg.Workspace = &workspace{changes: tc.changes}
			cfg.StallIterations = 2
			res := Run(context.Background(), cfg)
			if res.Status != tc.want || res.Iterations != tc.iters || res.Last.Changes == nil {
				t.Fatalf("status %s after %d iterations (last changes %v)\n%s", res.Status, res.Iterations, res.Last.Changes, log.String())
			}
			if tc.want == Stalled && !strings.Contains(log.String(), "Stalled: the last 2 iterations changed no file and signaled nothing") {
				t.Errorf("log:\n%s", log.String())
			}
		})
	}
}

// TestStallNeedsSilence: an iteration that signals, or fails, is not
// idle, even if it changed nothing (a loop that failed every iteration
// it was allowed is aborted, not stalled); without stall_iterations
// nothing stalls.
func TestStallNeedsSilence(t *testing.T) {
	var log strings.Builder
	s := &script{steps: []step{{out: failure}}}
	cfg := s.config(4, 10, &log)
	cfg.Workspace = &workspace{changes: []git.Changes{unchanged}}
	cfg.StallIterations = 2
	if res := Run(context.Background(), cfg); res.Status != Aborted || res.Iterations != 4 {
		t.Errorf("FAILURE every time: %s\n%s", res.Status, log.String())
	}
	s = &script{steps: []step{{out: "crashed", exit: 1}}}
	cfg = s.config(4, 3, &log)
	cfg.Workspace = &workspace{changes: []git.Changes{unchanged}}
	cfg.StallIterations = 2
	if res := Run(context.Background(), cfg); res.Status != Aborted || res.Iterations != 3 {
		t.Errorf("failing every time: %s after %d iterations\n%s", res.Status, res.Iterations, log.String())
	}
	s = &script{steps: []step{{out: "working"}}}
	cfg = s.config(4, 10, &log)
	cfg.Workspace = &workspace{changes: []git.Changes{unchanged}}
	if res := Run(context.Background(), cfg); res.Status != MaxIters {
		t.Errorf("no stall rule: %s", res.Status)
	}
}
