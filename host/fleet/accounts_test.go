package fleet

import (
	"context"
	"sync"
	"testing"
	"time"

	"rooda/host/ledger"
)

// TestAccountsLedgerSharedByWorkers: the runs of two workers, on two
// connections to a real NATS server, each through its worker's socket
// (HTTP, as a run's rooda reaches it), write limits to one account at
// once: none is lost (compare-and-set on the bucket's revision), and each
// worker reads the account limited until the latest reset.
func TestAccountsLedgerSharedByWorkers(t *testing.T) {
	s := embedded(t)
	ctx := context.Background()
	var clients []*ledger.Client
	for range 2 {
		addr, stop, err := serveLedger(client(t, s).Accounts())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(stop)
		clients = append(clients, ledger.Dial(addr))
	}
	now := time.Now().Truncate(time.Second)
	var wg sync.WaitGroup
	for i := range 10 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := ledger.Update(ctx, clients[i%2], "team", func(e *ledger.Entry) bool {
				e.Hits = append(e.Hits, now)
				if until := now.Add(time.Duration(i) * time.Second); until.After(e.LimitedUntil) {
					e.LimitedUntil = until
				}
				return true
			})
			if err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	for i, c := range clients {
		e, err := ledger.Get(ctx, c, "team")
		if err != nil {
			t.Fatal(err)
		}
		if len(e.Hits) != 10 || !e.LimitedUntil.Equal(now.Add(9*time.Second)) {
			t.Errorf("worker %d reads %d hits, limited until %v; want 10, until %v", i, len(e.Hits), e.LimitedUntil, now.Add(9*time.Second))
		}
	}
	all, err := client(t, s).Accounts().All(ctx)
	if err != nil || len(all) != 1 || len(all["team"].Hits) != 10 {
		t.Errorf("the bucket's accounts: %v, %v", all, err)
	}
}

// TestAccountsEntryIsBounded: an entry far larger than any a loop
// writes (an agent that reached a worker's socket filling the bucket) is
// refused by the bucket.
func TestAccountsEntryIsBounded(t *testing.T) {
	s := embedded(t)
	accounts := client(t, s).Accounts()
	huge := ledger.Entry{Hits: make([]time.Time, 10000)}
	for i := range huge.Hits {
		huge.Hits[i] = time.Now()
	}
	if _, err := accounts.Put(context.Background(), "team", huge, 0); err == nil {
		t.Error("an entry of 10000 hits was written")
	}
	if _, err := accounts.Put(context.Background(), "team", ledger.Entry{Hits: huge.Hits[:10]}, 0); err != nil {
		t.Errorf("an entry of 10 hits: %v", err)
	}
}
