package runlog

import "testing"

// settled waits, as the test ends, for what r writes in the background
// (run.json once a second, the journal's fsyncs), before the test's
// temporary directory is removed: a write racing the removal leaves it
// not empty.
func settled(t testing.TB, r *Recorder) {
	t.Cleanup(func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.waitSynced()
	})
}

// killed leaves r's record as a rooda killed outright leaves it:
// running, by a process that is gone, its lock let go.
func killed(r *Recorder) {
	r.lock.Close()
	r.run.PID = 1 << 22
	r.save()
}
