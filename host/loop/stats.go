package loop

import (
	"math"
	"time"
)

// Stats summarises iteration durations in constant memory: count, total,
// min and max, and a running mean and sum of squared deviations
// (Welford's online method), so a run of any length costs the same.
type Stats struct {
	Count int
	Total time.Duration
	Min   time.Duration
	Max   time.Duration
	mean  float64 // nanoseconds
	m2    float64
}

// Add records one iteration's duration.
func (s *Stats) Add(d time.Duration) {
	s.Count++
	s.Total += d
	if s.Count == 1 || d < s.Min {
		s.Min = d
	}
	if d > s.Max {
		s.Max = d
	}
	x := float64(d)
	delta := x - s.mean
	s.mean += delta / float64(s.Count)
	s.m2 += delta * (x - s.mean)
}

// Mean is the average duration, 0 before any iteration.
func (s *Stats) Mean() time.Duration { return time.Duration(math.Round(s.mean)) }

// StdDev is the population standard deviation, as seed 002 defines it
// (M2 / n); 0 with fewer than two iterations.
func (s *Stats) StdDev() time.Duration {
	if s.Count < 2 {
		return 0
	}
	return time.Duration(math.Round(math.Sqrt(s.m2 / float64(s.Count))))
}
