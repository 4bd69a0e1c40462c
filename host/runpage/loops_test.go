package runpage

import (
	"testing"

	"rooda/host/journal"
	"rooda/host/loop"
	"rooda/host/runlog"
)

// TestLoopsAtOnce: on the page of a run whose loops ran at once
// (parallel()), each iteration names its loop, on its bar and in its
// facts, and its prompt is diffed against the one before it in its own
// loop, not against the other loop's that came between.
func TestLoopsAtOnce(t *testing.T) {
	dir := t.TempDir()
	r, err := runlog.Start(dir, "tasks", []string{"rooda", "script", "run", "tasks.star"}, 0, "")
	if err != nil {
		t.Fatal(err)
	}
	a, b := r.NewLoop("task-a", journal.Key{}), r.NewLoop("task-b", journal.Key{})
	a.LoopStarted("build", nil, nil, nil)
	b.LoopStarted("build", nil, nil, nil)
	// The loops' iterations take turns in the record: a1, b1, a2.
	for _, step := range []struct {
		l      *runlog.LoopRecord
		prompt string
	}{{a, "task a\nfirst\n"}, {b, "task b\nfirst\n"}, {a, "task a\nsecond\n"}} {
		step.l.IterationStarted(loop.Request{Prompt: step.prompt})
		step.l.IterationFinished(&loop.Iteration{Prompt: step.prompt, Outcome: loop.OutcomeContinue})
	}
	a.LoopFinished(loop.Result{Status: loop.MaxIters})
	b.LoopFinished(loop.Result{Status: loop.MaxIters})
	if err := r.Finish(loop.MaxIters); err != nil {
		t.Fatal(err)
	}
	_, page := get(t, dir, "/runs/"+r.ID())
	mustContain(t, "the run page", page,
		`<title>Iteration 1 (task-a): continue`, `<title>Iteration 2 (task-b): continue`, `<title>Iteration 3 (task-a): continue`,
		`<dt>Loop</dt><dd>task-b</dd>`,
		`<p class="loop">Loop: <strong>task-a</strong>, procedure build`,
		"those of loops that ran at once (parallel()) are drawn one after another",
		`<pre class="diff" data-src="`+r.ID()+`/diff?from=1&to=3"></pre>`)
	if n := count(page, `<pre class="diff"`); n != 1 {
		t.Errorf("%d prompt diffs, want 1: only task-a has two iterations, diffed against its own", n)
	}
}
