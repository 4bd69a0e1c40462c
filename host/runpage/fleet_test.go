package runpage

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestFleetStatusAskedOnceASecond: the pages open at once, each asking
// for the fleet's version, start one rooda-fleet status between them,
// not one each.
func TestFleetStatusAskedOnceASecond(t *testing.T) {
	var asked atomic.Int32
	status := shared(func(context.Context) ([]byte, error) {
		asked.Add(1)
		time.Sleep(50 * time.Millisecond) // a status that takes a while
		return []byte("[]"), nil
	})
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if out, err := status(context.Background()); err != nil || string(out) != "[]" {
				t.Errorf("status %q, %v", out, err)
			}
		}()
	}
	wg.Wait()
	if n := asked.Load(); n != 1 {
		t.Fatalf("the fleet was asked %d times by 8 pages at once, want 1", n)
	}
}
