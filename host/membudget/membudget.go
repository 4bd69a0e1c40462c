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
// resident memory is still far below. But a garbage collection started
// while such a copy runs cannot finish until the copy ends, and it stops
// every goroutine while it waits, the Guard's too, and any goroutine that
// allocates meanwhile. So while a Guard runs, the runtime's collector is
// off (and so is its soft memory limit, which would start collections
// too), and the script's thread collects at its checkpoints, between two
// steps, where a collection waits for nothing. Inside a builtin that
// waits (iterate() running an agent) nothing is collected until the
// script's next step: rooda's own work there makes little garbage (the
// agent's output goes to a ring allocated once), and a collection
// started by anyone else could freeze the Guard behind a huge copy.
package membudget

import (
	"fmt"
	"math"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"time"
)

// tick is how often the Guard looks: the pages a copy touches in that
// time are a few MiB, well within the 64 MiB of slack the budget allows.
const tick = 2 * time.Millisecond

// StackLimit bounds the interpreter's stacks, whatever the budget: Go
// stops a goroutine whose stack passes 1 GB with a fatal error, and a
// value nested millions of levels deep, walked by str() or "%s" % x on
// the Go stack, gets there.
const StackLimit = 128 << 20

// due reports whether the heap grew enough since the latest collection
// left live bytes for the next one: by half, where the runtime's default
// (GOGC=100) lets it double, which a budget cannot afford near its end;
// and, in the last eighth of the budget, by any 4 MiB.
func (g *Guard) due(used, heap int64) bool {
	return heap > g.live+g.live/2+4<<20 || used > g.limit-g.limit/8 && heap > g.live+4<<20
}

// Guard watches the process's memory against a budget.
type Guard struct {
	limit int64
	used  atomic.Int64 // memory held, at the latest tick or collection
	heap  atomic.Int64 // bytes in heap objects, likewise
	// checking keeps Checkpoints one at a time: several threads of a
	// script (parallel()) reach them. It guards live and sample.
	checking  sync.Mutex
	live      int64 // heap objects left by the latest collection
	stop      chan struct{}
	done      sync.WaitGroup
	gcPercent int   // the runtime's settings before Start
	softLimit int64 // restored by Stop
	procs     int
	owner     bool // this Guard changed the runtime's settings
	sample    *sample
}

// Over is why a Guard stopped: the memory held, and the stacks.
type Over struct {
	Used, Stacks int64
}

// Stack reports whether the stacks, not the heap, went over.
func (o Over) Stack() bool { return o.Stacks > StackLimit }

// active is set while a Guard owns the runtime's settings: one run's
// Guard at a time may turn the collector off and give it back.
var active atomic.Bool

// Start watches the memory until Stop: over is called once, the first
// time the memory held goes over limit or the stacks over StackLimit.
// The watch needs a processor of its own while the script's thread is
// inside one long copy, so Start gives the runtime two at least.
func Start(limit int64, over func(Over)) *Guard {
	g := &Guard{limit: limit, stop: make(chan struct{}), sample: newSample()}
	if g.owner = active.CompareAndSwap(false, true); g.owner {
		g.gcPercent = debug.SetGCPercent(-1)
		g.softLimit = debug.SetMemoryLimit(math.MaxInt64)
		g.procs = runtime.GOMAXPROCS(0)
		runtime.GOMAXPROCS(max(g.procs, 2))
	}
	g.collect()
	g.done.Add(1)
	go g.watch(over)
	return g
}

func (g *Guard) watch(over func(Over)) {
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
		if o, ok := g.read(sample); !ok {
			over(o)
			return
		}
	}
}

// read takes a sample, and reports whether it is within the budget.
func (g *Guard) read(s *sample) (Over, bool) {
	used, heap, stacks := s.read()
	g.used.Store(used)
	g.heap.Store(heap)
	o := Over{Used: used, Stacks: stacks}
	return o, used <= g.limit && stacks <= StackLimit
}

// Checkpoint is called by a script's threads between two steps: it
// collects when the memory held grew enough since the last collection,
// and reports whether the memory is near the budget (past an eighth of
// it: from there a few steps of s = s + s reach the budget, and the last
// must be seen while it runs), where the caller checks at every step and
// notes where the script is.
func (g *Guard) Checkpoint() bool {
	g.checking.Lock()
	defer g.checking.Unlock()
	if g.due(g.used.Load(), g.heap.Load()) {
		g.collect()
	}
	return g.used.Load() > g.limit/8
}

// collect collects the garbage; past half the budget it gives the
// memory freed back to the system, so that what the Guard reads is what
// the script holds (below that, what it frees is used again before more
// is mapped, and giving it back would cost the time of faulting it in
// again). Start and the script's thread call it, one at a time.
func (g *Guard) collect() {
	if g.used.Load() > g.limit/2 {
		debug.FreeOSMemory()
	} else {
		runtime.GC()
	}
	g.read(g.sample)
	g.live = g.heap.Load()
}

// Stop ends the watching and gives the runtime back its settings. It
// reports the last reading, and whether it is over the budget: a script
// whose last step went over may end before the next tick.
func (g *Guard) Stop() (Over, bool) {
	close(g.stop)
	g.done.Wait()
	o, within := g.read(g.sample)
	if g.owner {
		debug.SetGCPercent(g.gcPercent)
		debug.SetMemoryLimit(g.softLimit)
		runtime.GOMAXPROCS(g.procs)
		active.Store(false)
	}
	return o, !within
}

// sample reads the memory the Go runtime holds — everything it mapped,
// less what it gave back to the system; it counts a large allocation as
// soon as it is made — and how much of it is in heap objects, live or
// not yet collected.
type sample struct{ s []metrics.Sample }

func newSample() *sample {
	return &sample{s: []metrics.Sample{
		{Name: "/memory/classes/total:bytes"},
		{Name: "/memory/classes/heap/released:bytes"},
		{Name: "/memory/classes/heap/objects:bytes"},
		{Name: "/memory/classes/heap/stacks:bytes"},
	}}
}

func (s *sample) read() (used, heap, stacks int64) {
	metrics.Read(s.s)
	value := func(i int) int64 { return int64(s.s[i].Value.Uint64()) }
	return value(0) - value(1), value(2), value(3)
}

// Used is the memory the Go runtime holds now.
func Used() int64 {
	used, _, _ := newSample().read()
	return used
}

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
