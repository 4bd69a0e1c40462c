package membudget

import (
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
// is reported within a few ticks, before its pages are touched, and the
// collector is off while the Guard watches and back on after.
func TestGuardSeesAnAllocationAtOnce(t *testing.T) {
	over := make(chan int64, 1)
	g := Start(Used()+32<<20, func(used int64) { over <- used })
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
	g := Start(1<<30, func(int64) {})
	defer g.Stop()
	var peak int64
	for i := range 200 {
		held = [][]byte{make([]byte, 1<<20)} // the previous MiB is garbage
		if i%8 == 0 {
			time.Sleep(3 * tick) // let the Guard read the heap
			g.Checkpoint()
			peak = max(peak, g.used.Load())
		}
	}
	held = nil
	if peak > 64<<20 {
		t.Errorf("the memory held reached %d MiB with 1 MiB live: garbage was not collected", peak>>20)
	}
}
