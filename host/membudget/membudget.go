// Package membudget holds a run to its memory budget (--max-memory).
//
// go.starlark.net has no allocation limit of its own, and the Go runtime
// cannot refuse an allocation: past the machine's memory it dies with a
// fatal error that no recover catches. So a Guard watches the memory the
// Go runtime holds (read through runtime/metrics, which stops nothing)
// every tick, and reports the first time it goes over the budget, so
// that the host can cancel the script at its next step, or end the run
// in the middle of one.
//
// One Starlark step may be a single huge operation: s + s of a 512 MiB
// string is one allocation and one copy that nothing can interrupt. The
// runtime counts the allocation as it is made, before the copy touches
// its pages, so a Guard that is running sees it while the process's
// resident memory is still far below. A Guard that is running: a garbage
// collection started by that allocation waits for the copy to end before
// it can finish, and stops every goroutine, the Guard's too, while it
// waits. So near the budget the Guard takes the collector's pacing on
// itself: the runtime's collector is turned off, and the script's thread
// collects at its checkpoints, between two steps, where a collection
// waits for nothing.
package membudget

import (
	"fmt"
	"math"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"time"
)

// Default is the budget when none is set: generous for a procedure script
// (prompts of a few MiB, agents' outputs within max_output_buffer), small
// enough to leave a shared machine standing.
const Default = 512 << 20

// tick is how often the Guard looks: the pages a copy touches in that
// time are a few MiB, well within the 64 MiB of slack the budget allows.
const tick = 2 * time.Millisecond

// Guard watches the process's memory against a budget.
type Guard struct {
	limit int64
	used  atomic.Int64 // at the latest tick or collection
	stop  chan struct{}
	done  sync.WaitGroup

	// Owned by the checkpoints, which one thread makes.
	manual    bool  // the collector is off, and paced by Checkpoint
	collected int64 // memory held after the latest collection
	gcPercent int   // the runtime's settings before Start
	softLimit int64
}

// Start watches the memory until Stop: over is called once, with the
// memory in use, the first time it goes over limit. Until the memory
// comes near the budget, the runtime's soft memory limit is set to
// limit, so that the collector works harder as it comes closer.
func Start(limit int64, over func(used int64)) *Guard {
	g := &Guard{limit: limit, stop: make(chan struct{})}
	g.gcPercent = debug.SetGCPercent(100)
	debug.SetGCPercent(g.gcPercent)
	g.softLimit = debug.SetMemoryLimit(limit)
	g.done.Add(1)
	go g.watch(over)
	return g
}

func (g *Guard) watch(over func(used int64)) {
	defer g.done.Done()
	ticker := time.NewTicker(tick)
	defer ticker.Stop()
	sample := newSample()
	for {
		select {
		case <-g.stop:
			return
		case <-ticker.C:
		}
		used := sample.read()
		g.used.Store(used)
		if used > g.limit {
			over(used)
			return
		}
	}
}

// Checkpoint is called by the script's thread between two steps. Near
// the budget (an eighth of it: from there a few steps can double what a
// script holds twice with s + s, and the last must be seen while it
// runs) it turns the runtime's collector off and collects itself when the memory held grew
// by half since the last collection; it reports whether it is near, so
// that the caller can check at every step and note where the script is.
func (g *Guard) Checkpoint() bool {
	used := g.used.Load()
	switch near := used > g.limit/8; {
	case near && !g.manual:
		g.manual = true
		debug.SetGCPercent(-1)
		debug.SetMemoryLimit(math.MaxInt64) // the limit would start collections too
		g.collect()
	case !near && g.manual && used < g.limit/16:
		g.manual = false
		debug.SetGCPercent(g.gcPercent)
		debug.SetMemoryLimit(g.limit)
	case g.manual && used > g.collected+g.collected/2+1<<20:
		g.collect()
	}
	return g.manual
}

// collect collects the garbage and gives the memory freed back to the
// system, so that what the Guard reads is what the script holds.
func (g *Guard) collect() {
	debug.FreeOSMemory()
	g.collected = Used()
	g.used.Store(g.collected)
}

// Limit is the budget in bytes.
func (g *Guard) Limit() int64 { return g.limit }

// Stop ends the watching and gives the runtime back its settings.
func (g *Guard) Stop() {
	if g == nil {
		return
	}
	close(g.stop)
	g.done.Wait()
	debug.SetGCPercent(g.gcPercent)
	debug.SetMemoryLimit(g.softLimit)
}

// sample reads the memory the Go runtime holds: everything it mapped,
// less what it gave back to the system. It counts a large allocation as
// soon as it is made.
type sample struct{ s []metrics.Sample }

func newSample() *sample {
	return &sample{s: []metrics.Sample{
		{Name: "/memory/classes/total:bytes"},
		{Name: "/memory/classes/heap/released:bytes"},
	}}
}

func (s *sample) read() int64 {
	metrics.Read(s.s)
	return int64(s.s[0].Value.Uint64()) - int64(s.s[1].Value.Uint64())
}

// Used is the memory the Go runtime holds now.
func Used() int64 { return newSample().read() }

// Human writes a size as people read memory: "512 MiB", "1.5 GiB".
func Human(n int64) string {
	units := []string{"bytes", "KiB", "MiB", "GiB", "TiB"}
	f, u := float64(n), 0
	for f >= 1024 && u < len(units)-1 {
		f, u = f/1024, u+1
	}
	switch {
	case u == 0:
		return fmt.Sprintf("%d bytes", n)
	case f == float64(int64(f)):
		return fmt.Sprintf("%d %s", int64(f), units[u])
	}
	return fmt.Sprintf("%.1f %s", f, units[u])
}
