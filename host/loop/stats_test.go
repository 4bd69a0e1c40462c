package loop

import (
	"testing"
	"time"
)

// TestStatsMatchSeedExample: seed 002's Example 1 durations give its
// summary (mean 45.3s, population stddev 5.5s).
func TestStatsMatchSeedExample(t *testing.T) {
	var s Stats
	for _, d := range []time.Duration{45200, 38700, 52100} {
		s.Add(d * time.Millisecond)
	}
	if s.Count != 3 || s.Min != 38700*time.Millisecond || s.Max != 52100*time.Millisecond || s.Total != 136*time.Second {
		t.Errorf("count %d min %v max %v total %v", s.Count, s.Min, s.Max, s.Total)
	}
	if m := s.Mean().Round(100 * time.Millisecond); m != 45300*time.Millisecond {
		t.Errorf("mean %v", s.Mean())
	}
	if sd := s.StdDev().Round(100 * time.Millisecond); sd != 5500*time.Millisecond {
		t.Errorf("stddev %v", s.StdDev())
	}
}

func TestStatsOfOneAndNone(t *testing.T) {
	var s Stats
	if s.Mean() != 0 || s.StdDev() != 0 {
		t.Error("empty stats not zero")
	}
	s.Add(time.Second)
	if s.Mean() != time.Second || s.StdDev() != 0 || s.Min != time.Second {
		t.Errorf("one: mean %v stddev %v", s.Mean(), s.StdDev())
	}
}

// TestStatsStayConstant: a million iterations of alternating 1s and 3s
// give mean 2s and stddev 1s exactly, in a value that never grows.
func TestStatsStayConstant(t *testing.T) {
	var s Stats
	for i := 0; i < 1_000_000; i++ {
		s.Add(time.Duration(1+2*(i%2)) * time.Second)
	}
	if s.Mean() != 2*time.Second || s.StdDev() != time.Second {
		t.Errorf("mean %v stddev %v", s.Mean(), s.StdDev())
	}
}

// TestStatsAllocateNothing: recording an iteration allocates nothing, so
// a run of any length holds the same few words.
func TestStatsAllocateNothing(t *testing.T) {
	var s Stats
	if n := testing.AllocsPerRun(1000, func() { s.Add(time.Second) }); n != 0 {
		t.Errorf("%v allocations per Add", n)
	}
}
