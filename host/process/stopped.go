package process

import (
	"sync"
	"time"
)

// stops are the times rooda's processes were suspended (Ctrl+Z), for
// clocks kept outside this package — a decoded agent's model wait —
// which must not count them either.
var stops struct {
	mu    sync.Mutex
	spans []span // ended suspensions, oldest first
	since time.Time
	on    bool
}

type span struct{ from, to time.Time }

// noteSuspended and noteResumed mark a suspension's start and end.
func noteSuspended(now time.Time) {
	stops.mu.Lock()
	defer stops.mu.Unlock()
	stops.on, stops.since = true, now
}

func noteResumed(now time.Time) {
	stops.mu.Lock()
	defer stops.mu.Unlock()
	if stops.on {
		stops.spans = append(stops.spans, span{stops.since, now})
		stops.on = false
	}
}

// StoppedSince is how long, from t to now, rooda's processes were
// suspended (Ctrl+Z, until fg): time a limit on an agent's wait must not
// count.
func StoppedSince(t time.Time) time.Duration {
	stops.mu.Lock()
	defer stops.mu.Unlock()
	var total time.Duration
	for _, s := range stops.spans {
		total += overlap(s.from, s.to, t)
	}
	if stops.on {
		total += overlap(stops.since, time.Now(), t)
	}
	return total
}

// overlap is how much of from..to lies after t.
func overlap(from, to, t time.Time) time.Duration {
	if from.Before(t) {
		from = t
	}
	return max(to.Sub(from), 0)
}
