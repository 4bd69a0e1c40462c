package runlog

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"rooda/host/journal"
	"rooda/host/loop"
)

// TestLoopsAtOnce: loops that run at once each record their own
// iterations: one sequence of record numbers without collisions, each
// meta.json naming its own loop, and each loop's status in run.json.
func TestLoopsAtOnce(t *testing.T) {
	dir := t.TempDir()
	r, err := Start(dir, "parallel", nil, 10, "")
	if err != nil {
		t.Fatal(err)
	}
	settled(t, r)
	const loops, iterations = 3, 4
	var wg sync.WaitGroup
	for i := range loops {
		l := r.NewLoop("task-"+string(rune('a'+i)), journal.Key{Thread: "t", Seq: i + 1})
		l.LoopStarted("task", nil, []string{"agent"}, nil)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 1; n <= iterations; n++ {
				l.IterationStarted(loop.Request{Prompt: "p"})
				l.IterationFinished(&loop.Iteration{Number: n, Outcome: loop.OutcomeContinue, Agent: string(rune('a' + i))})
			}
			l.LoopFinished(loop.Result{Status: loop.MaxIters})
		}()
	}
	wg.Wait()
	byLoop := map[int]map[string]int{}
	for record := 1; record <= loops*iterations; record++ {
		data, err := os.ReadFile(filepath.Join(iterationDir(r.Dir(), record), "meta.json"))
		if err != nil {
			t.Fatalf("record %d: %v", record, err)
		}
		var m Meta
		json.Unmarshal(data, &m)
		if m.Record != record {
			t.Errorf("record %d says it is %d", record, m.Record)
		}
		if byLoop[m.Loop] == nil {
			byLoop[m.Loop] = map[string]int{}
		}
		byLoop[m.Loop][m.Agent]++
	}
	// Loop i started i-th, so it is Loop i+1 in the record, its agent 'a'+i.
	for i := range loops {
		agent := string(rune('a' + i))
		if got := byLoop[i+1]; len(got) != 1 || got[agent] != iterations {
			t.Errorf("loop %d recorded %v, want %d iterations of agent %s", i+1, got, iterations, agent)
		}
	}
	run, err := ReadRun(dir, r.ID())
	if err != nil {
		t.Fatal(err)
	}
	if run.Iterations != loops*iterations || len(run.Loops) != loops {
		t.Fatalf("run.json: %d iterations, %d loops", run.Iterations, len(run.Loops))
	}
	for i, l := range run.Loops {
		if want := "task-" + string(rune('a'+i)); l.Name != want {
			t.Errorf("loop %d: named %q, want %q", i+1, l.Name, want)
		}
		if l.Status != string(loop.MaxIters) {
			t.Errorf("loop %d: status %q", i+1, l.Status)
		}
	}
}
