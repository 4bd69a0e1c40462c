package session

import (
	"go.starlark.net/starlark"

	"rooda/host/loop"
)

// The exit rule of a script that runs to its end: its status, and exit
// code, are those of its last statement that ran loops, in program order
// on the script's own thread: an iterate()'s status, or for a parallel()
// the worst status of its functions' loops (loop.Worst), each function
// counting its own last loop. Which loop of a parallel() ended last has
// no say: the exit does not depend on timing. A script that calls
// exit(code, reason) ends with that code instead (RunScript).

// endingKey is the thread-local slot of a function parallel() runs: how
// its last loop ended, which parallel() reads when every function has
// returned. The script's main thread has none: its ending is the
// session's.
const endingKey = "rooda.ending"

// ending is how a thread's last loop ended, and the log's line of it.
type ending struct {
	status  loop.Status
	message string
}

// ended keeps res as the latest ending of thread's loops: the session's
// (the run's status) on the script's thread, its slot on a thread of
// parallel().
func (s *Session) ended(thread *starlark.Thread, res loop.Result) {
	s.endedWith(thread, ending{res.Status, res.Message})
}

func (s *Session) endedWith(thread *starlark.Thread, e ending) {
	if slot, ok := thread.Local(endingKey).(*ending); ok {
		*slot = e
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.last, s.message = e.status, e.message
}

// worst is the worst of the endings of parallel()'s functions, those that
// ran a loop; ok is false when none did.
func worst(slots []*ending) (e ending, ok bool) {
	for _, slot := range slots {
		if slot.status == "" {
			continue
		}
		if !ok || loop.Worst(e.status, slot.status) != e.status {
			e, ok = *slot, true
		}
	}
	return e, ok
}
