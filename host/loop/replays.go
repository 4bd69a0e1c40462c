package loop

import (
	"strconv"
	"strings"

	"rooda/host/logging"
)

// replays are the iterations in a row that a resumed run's journal
// answered (Iteration.Replayed), said in one line once the row ends:
// a resume of a run of 5,000 iterations said 4,999 lines, all but
// their numbers alike, before its first agent started. It keeps counts,
// never the iterations: each holds its agent's output.
type replays struct {
	first, last int
	// outcomes counts each outcome, in the order they came.
	outcomes []outcomeCount
	spent    Spend
	// cause and failures are the last iteration's, said when the row
	// holds one.
	cause    Cause
	failures int
}

type outcomeCount struct {
	outcome Outcome
	n       int
}

// add counts it in the row.
func (s *replays) add(it *Iteration) {
	if s.first == 0 {
		s.first = it.Number
	}
	s.last, s.cause, s.failures = it.Number, it.Cause, it.ConsecutiveFailures
	s.spent = s.spent.Add(it.Spent)
	for i := range s.outcomes {
		if s.outcomes[i].outcome == it.Outcome {
			s.outcomes[i].n++
			return
		}
	}
	s.outcomes = append(s.outcomes, outcomeCount{it.Outcome, 1})
}

// logger is the loop's log, the replayed iterations not yet said
// written first: whatever the loop says next comes after them.
func (r *runner) logger() *logging.Logger {
	r.flushReplays()
	return r.cfg.Log
}

// flushReplays says the replayed iterations not yet said, in one line:
// the line of its iteration when the row holds one, as every replayed
// iteration had. Called before a prompt is composed too: what composing
// logs (a digest's checks, the context added) is written by the
// caller's code, not through logger.
func (r *runner) flushReplays() {
	s := r.replays
	if s.first == 0 {
		return
	}
	r.replays = replays{}
	if s.first == s.last {
		outcome := s.outcomes[0].outcome
		r.cfg.Log.Event(logging.Info, "iteration_replayed", append([]any{"iteration", s.first, "outcome", string(outcome), "cause", string(s.cause),
			"consecutive_failures", s.failures}, s.spent.Fields()...),
			"Iteration %s: from the journal, not run again (%s)%s", r.label(s.first), outcome, spentText(s.spent))
		return
	}
	counts := make(map[string]int, len(s.outcomes))
	said := make([]string, len(s.outcomes))
	for i, c := range s.outcomes {
		counts[string(c.outcome)] = c.n
		said[i] = strconv.Itoa(c.n) + " " + string(c.outcome)
	}
	r.cfg.Log.Event(logging.Info, "iterations_replayed", append([]any{"first", s.first, "last", s.last, "outcomes", counts,
		"consecutive_failures", s.failures}, s.spent.Fields()...),
		"Iterations %d–%s: from the journal, not run again (%s)%s", s.first, r.label(s.last), strings.Join(said, ", "), spentText(s.spent))
}
