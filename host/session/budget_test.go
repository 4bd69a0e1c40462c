package session

import (
	"context"
	"testing"

	"rooda/host/config"
	"rooda/host/engine"
	"rooda/host/loop"
)

// TestIterationBudgetShared: loops that start while others run share the
// run's iteration budget: each reserves its limit, so together they never
// go over it; a loop that ends gives back what it did not take.
func TestIterationBudgetShared(t *testing.T) {
	s := New(context.Background(), Options{Budgets: Budgets{MaxTotalIterations: 10}})
	plan := func(max int) *engine.Plan {
		return &engine.Plan{Settings: &config.Settings{MaxIterations: config.Value[int]{V: max}}}
	}
	a, b, c := plan(4), plan(0), plan(3)
	if capped, reserved, err := s.capIterations(a); capped || reserved != 4 || err != nil {
		t.Fatalf("a: %v %d %v", capped, reserved, err)
	}
	if capped, reserved, err := s.capIterations(b); !capped || reserved != 6 || b.Settings.MaxIterations.V != 6 || err != nil {
		t.Fatalf("b (unlimited): %v %d %v, limit %d; want capped to the 6 left", capped, reserved, err, b.Settings.MaxIterations.V)
	}
	if _, _, err := s.capIterations(c); err == nil {
		t.Fatal("c started with nothing left of the budget")
	}
	s.count(loop.Result{Iterations: 1}, 4, nil) // a took 1 of its 4
	if capped, reserved, err := s.capIterations(c); capped || reserved != 3 || err != nil {
		t.Fatalf("c after a: %v %d %v; want the 3 it asks", capped, reserved, err)
	}
}
