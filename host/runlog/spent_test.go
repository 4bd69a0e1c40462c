package runlog

import "testing"

// TestSpentReadsAsTheSummary: runs show writes what a run or an iteration
// spent as the run's summary did; a cost nobody knew is left out.
func TestSpentReadsAsTheSummary(t *testing.T) {
	cost := 0.0045
	s := &Spent{InputTokens: 1000, OutputTokens: 345, CacheReadTokens: 200, CostUSD: &cost}
	if got, want := s.String(), "1,545 tokens, $0.0045 (input 1,000, output 345, cache read 200, cache write 0)"; got != want {
		t.Errorf("%q, want %q", got, want)
	}
	s.CostUSD = nil
	if got, want := s.String(), "1,545 tokens (input 1,000, output 345, cache read 200, cache write 0)"; got != want {
		t.Errorf("%q, want %q", got, want)
	}
}
