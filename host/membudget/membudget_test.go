package membudget

import (
	"math"
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

func TestHuman(t *testing.T) {
	for n, want := range map[int64]string{
		500: "500 bytes", 1 << 20: "1 MiB", 256 << 20: "256 MiB", 1 << 30: "1 GiB", 3 << 29: "1.5 GiB", 1500: "1.5 KiB",
	} {
		if got := Human(n); got != want {
			t.Errorf("Human(%d) = %q, want %q", n, got, want)
		}
	}
}

var held [][]byte

// TestGuardSeesAnAllocationAtOnce: a single allocation past the budget
// is reported within a few ticks, before its pages are touched.
func TestGuardSeesAnAllocationAtOnce(t *testing.T) {
	over := make(chan int64, 1)
	g := Start(Used()+32<<20, func(o Over) { over <- o.Used })
	defer g.Stop()
	held = append(held, make([]byte, 64<<20))
	select {
	case used := <-over:
		if used < 64<<20 {
			t.Errorf("over at %d bytes, with 64 MiB more held", used)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the Guard never saw 64 MiB over its budget")
	}
	held = nil
}

// TestCheckpointCollects: garbage made between checkpoints is collected
// by them, so the memory held stays near what the script keeps.
func TestCheckpointCollects(t *testing.T) {
	g := Start(1<<30, func(Over) {})
	defer g.Stop()
	var peak int64
	for i := range 400 {
		held = [][]byte{make([]byte, 1<<20)} // the previous MiB is garbage
		if i%8 == 0 {
			time.Sleep(3 * tick) // let the Guard read the heap
			g.Checkpoint()
			peak = max(peak, g.used.Load())
		}
	}
	held = nil
	if peak > 128<<20 {
		t.Errorf("the memory held reached %d MiB with 1 MiB live: garbage was not collected", peak>>20)
	}
}

// TestGuardOwnsTheRuntimeSettings: while a Guard watches, the collector
// and the soft memory limit are off and there are two processors at
// least; Stop gives back what was there, and a second Guard at the same
// time changes nothing.
func TestGuardOwnsTheRuntimeSettings(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	before := debug.SetGCPercent(77)
	defer debug.SetGCPercent(before)
	g := Start(1<<30, func(Over) {})
	inner := Start(1<<30, func(Over) {})
	if p := debug.SetGCPercent(-1); p != -1 || runtime.GOMAXPROCS(0) < 2 || debug.SetMemoryLimit(-1) != math.MaxInt64 {
		t.Errorf("while watching: GC percent %d, %d processors", p, runtime.GOMAXPROCS(0))
	}
	inner.Stop()
	if p := debug.SetGCPercent(-1); p != -1 {
		t.Errorf("a second Guard's Stop gave the collector back (%d) while the first watches", p)
	}
	g.Stop()
	if p := debug.SetGCPercent(77); p != 77 || runtime.GOMAXPROCS(0) != 1 {
		t.Errorf("after Stop: GC percent %d, %d processors; want 77 and 1", p, runtime.GOMAXPROCS(0))
	}
}

// TestStopReportsALastStepOver: memory taken just before Stop, sooner
// than a tick, is still reported.
func TestStopReportsALastStepOver(t *testing.T) {
	g := Start(Used()+16<<20, func(Over) {})
	held = append(held, make([]byte, 64<<20))
	o, over := g.Stop()
	held = nil
	if !over || o.Used < 64<<20 {
		t.Errorf("Stop: over %t at %d bytes", over, o.Used)
	}
}
