package runpage

import (
	"bytes"
	"context"
	"fmt"
	"net/http/httptest"
	"strings"
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

// TestFleetPageShowsTheAccounts: the fleet page lists the accounts'
// ledger as rooda fleet status does: a limit met, the breaker's pause,
// the fleet's budget with what is spent and reserved; and its version
// changes when a limit ends, though the status does not.
func TestFleetPageShowsTheAccounts(t *testing.T) {
	until := time.Now().Add(time.Hour).UTC().Truncate(time.Second)
	status := fmt.Sprintf(`{"runs": [], "accounts": {
		"claude:3f9a": {"limited_until": %q, "cause": "usage_limit"},
		"codex:77c1": {"paused_until": %q},
		"@fleet": {"budget": {"max_cost_usd": 1}, "spent_usd": 0.4, "reserved_usd": 0.4}}}`, until.Format(time.RFC3339), until.Format(time.RFC3339))
	h := FleetHandler(t.TempDir(), "127.0.0.1:8080", func(context.Context) ([]byte, error) { return []byte(status), nil })
	req := httptest.NewRequest("GET", "http://127.0.0.1:8080/", nil)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	page := rec.Body.String()
	clock := until.Local().Format("15:04:05")
	for _, want := range []string{
		`<tr class="account" data-name="@fleet">`,
		`<td class="budget">max_cost_usd $1.00</td>`,
		`<td class="cost">$0.40 and 0 tokens</td>`,
		`<td class="limit">limited until ` + clock + ` (usage limit)</td>`,
		`<td class="limit">paused by the breaker until ` + clock + `</td>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %s:\n%s", want, page)
		}
	}
	if rec.Code != 200 || strings.Index(page, `data-name="@fleet"`) > strings.Index(page, `data-name="claude:3f9a"`) {
		t.Errorf("%d, the accounts not in order of their names:\n%s", rec.Code, page)
	}

	same := func(context.Context) ([]byte, error) {
		return []byte(`{"runs": [], "accounts": {"claude:3f9a": {"limited_until": "` + until.Format(time.RFC3339) + `"}}}`), nil
	}
	before := readFleet(context.Background(), same, until.Add(-time.Minute))
	if after := readFleet(context.Background(), same, until.Add(time.Second)); after.Version == before.Version || after.Accounts[0].Limit != "-" {
		t.Errorf("the same status once its limit ended: version %s then %s, limit %q then %q", before.Version, after.Version, before.Accounts[0].Limit, after.Accounts[0].Limit)
	}
}

// TestReadingTheFleetWritesNotWhatItWasGiven: the status shared() hands
// every page alike is read, not written: room left past its end stays
// as it was (pages asking at once wrote their accounts' limits there).
func TestReadingTheFleetWritesNotWhatItWasGiven(t *testing.T) {
	status := []byte(`{"runs": [], "accounts": {"claude:3f9a": {}}}`)
	room := append(status, bytes.Repeat([]byte("x"), 64)...)
	given := func(context.Context) ([]byte, error) { return room[:len(status)], nil }
	readFleet(context.Background(), given, time.Now())
	if string(room[len(status):]) != strings.Repeat("x", 64) {
		t.Errorf("the status's room was written: %q", room[len(status):])
	}
}
