package ledger

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"rooda/host/files"
)

// TestFileLosesNoHit: loops writing one account's entry at once, each
// through a File of its own (as separate roodas do), lose none of their
// writes: each is made over the revision it read, under the lock.
func TestFileLosesNoHit(t *testing.T) {
	path := filepath.Join(t.TempDir(), "rooda", "ledger.json")
	now := time.Now()
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f := &File{Path: path}
			_, err := Update(context.Background(), f, "team", func(e *Entry) bool {
				e.Hits = append(e.Hits, now)
				e.LimitedUntil = later(e.LimitedUntil, now.Add(time.Duration(i)*time.Second))
				return true
			})
			if err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	e, err := Get(context.Background(), &File{Path: path}, "team")
	if err != nil {
		t.Fatal(err)
	}
	if len(e.Hits) != 20 {
		t.Errorf("the entry counts %d hits, want 20", len(e.Hits))
	}
	if want := now.Add(19 * time.Second); !e.LimitedUntil.Equal(want) {
		t.Errorf("limited until %v, want the latest reset, %v", e.LimitedUntil, want)
	}
}

// TestBreakerCountsLimitsNotTries: the breaker pauses an account once
// its loops met breaker_hits limits within the window; the same limit
// met again before its reset is not another.
func TestBreakerCountsLimitsNotTries(t *testing.T) {
	ctx := context.Background()
	f := &File{Path: filepath.Join(t.TempDir(), "ledger.json")}
	b := Breaker{Hits: 2, Window: time.Hour, Backoff: 30 * time.Minute}
	t0 := time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)
	hit := func(at, reset time.Time) Entry {
		e, err := Hit(ctx, f, "team", "loop", "usage_limit", reset, at, b)
		must(t, err)
		return e
	}
	hit(t0, t0.Add(time.Minute))
	if e := hit(t0.Add(10*time.Second), t0.Add(time.Minute)); !e.PausedUntil.IsZero() {
		t.Fatalf("the same limit, met again before its reset, paused the account: %+v", e)
	}
	e := hit(t0.Add(2*time.Minute), t0.Add(3*time.Minute))
	if want := t0.Add(32 * time.Minute); !e.PausedUntil.Equal(want) {
		t.Errorf("a second limit: paused until %v, want %v", e.PausedUntil, want)
	}
	if h := e.Held("team", t0.Add(5*time.Minute)); !h.Paused || !h.Until.Equal(t0.Add(32*time.Minute)) {
		t.Errorf("held %+v", h)
	}
}

// TestHeld: an entry holds its account until its limit resets, or the
// breaker's pause ends, whichever is later; not after.
func TestHeld(t *testing.T) {
	now := time.Now()
	e := Entry{LimitedUntil: now.Add(time.Minute), PausedUntil: now.Add(time.Hour)}
	if h := e.Held("x", now); !h.Paused || !h.Until.Equal(now.Add(time.Hour)) {
		t.Errorf("held %+v, want paused for an hour", h)
	}
	if h := e.Held("x", now.Add(2*time.Hour)); !h.Until.IsZero() {
		t.Errorf("held %+v once both ended", h)
	}
}

// TestAccountFingerprint: a CLI given an API key is an account of that
// key, named by a fingerprint that does not hold the key; without one,
// the CLI's login.
func TestAccountFingerprint(t *testing.T) {
	key := "sk-ant-secret-123456"
	env := func(name string) string {
		if name == "ANTHROPIC_API_KEY" {
			return key
		}
		return ""
	}
	a := Account("/usr/bin/claude", env)
	if !strings.HasPrefix(a, "claude-") || strings.Contains(a, "secret") || a == Account("claude", func(string) string { return "other" }) {
		t.Errorf("account %q", a)
	}
	if got := Account("claude", func(string) string { return "" }); got != "claude" {
		t.Errorf("without a key: %q", got)
	}
}

// TestReserveNeverAbove: loops reserving at once against a $1.00
// budget, each iteration expected at $0.40: two reservations fit, the
// others are refused, and never more than the ceiling is reserved;
// settled, the spend counts and the reservations are given back.
func TestReserveNeverAbove(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "ledger.json")
	if _, err := SetBudget(ctx, &File{Path: path}, FleetEntry, &Budget{MaxCostUSD: 1, EstimateUSD: 0.4}); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var held []*Reservation
	refused := 0
	var wg sync.WaitGroup
	for range 10 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := Reserve(ctx, &File{Path: path}, "team")
			mu.Lock()
			defer mu.Unlock()
			var no *RefusedError
			switch {
			case errors.As(err, &no):
				refused++
			case err != nil:
				t.Error(err)
			default:
				held = append(held, r)
			}
		}()
	}
	wg.Wait()
	e, _ := Get(ctx, &File{Path: path}, FleetEntry)
	if len(held) != 2 || refused != 8 || e.ReservedUSD > 1 {
		t.Fatalf("%d reservations held, %d refused, $%v reserved; want 2, 8, $0.80", len(held), refused, e.ReservedUSD)
	}
	for _, r := range held {
		must(t, r.Settle(ctx, Amount{USD: 0.4, Tokens: 100}))
	}
	e, _ = Get(ctx, &File{Path: path}, FleetEntry)
	if e.ReservedUSD != 0 || e.SpentUSD != 0.8 || e.SpentTokens != 200 || e.LargestUSD != 0.4 {
		t.Errorf("after settling: %+v", e.Spending)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// BenchmarkFileIteration is what the file ledger adds to an iteration
// of a loop with no budget: the account's hold read, and a reservation
// that finds no budget and so settles nothing.
func BenchmarkFileIteration(b *testing.B) {
	ctx := context.Background()
	f := &File{Path: filepath.Join(b.TempDir(), "ledger.json")}
	for b.Loop() {
		if _, err := Get(ctx, f, "team"); err != nil {
			b.Fatal(err)
		}
		r, err := Reserve(ctx, f, "team")
		if err != nil {
			b.Fatal(err)
		}
		if err := r.Settle(ctx, Amount{USD: 0.1}); err != nil {
			b.Fatal(err)
		}
	}
}

// TestFileLockHeldGivesUp: a ledger whose lock another holds for good (a
// rooda stopped with it held) is given up by a write after lockWait, with an error
// the loop says once before going on without it.
func TestFileLockHeldGivesUp(t *testing.T) {
	defer func(w time.Duration) { lockWait = w }(lockWait)
	lockWait = 100 * time.Millisecond
	path := filepath.Join(t.TempDir(), "ledger.json")
	held, busy, err := files.Lock(path + ".lock")
	if err != nil || busy {
		t.Fatal(busy, err)
	}
	defer held.Close()
	if _, err := Hit(context.Background(), &File{Path: path}, "team", "loop a", "usage_limit", time.Now().Add(time.Hour), time.Now(), Breaker{}); err == nil || !strings.Contains(err.Error(), "held by another process") {
		t.Errorf("a lock held for good: %v", err)
	}
}

// TestFileReadsWithoutTheLock: what a plain run's loop does each
// iteration, a Reserve and a Get, neither waits for the file's lock (held
// here by another), nor makes it: the file holds no budgets, and a read
// sees a whole file (writes are renames).
func TestFileReadsWithoutTheLock(t *testing.T) {
	dir := t.TempDir()
	f := &File{Path: filepath.Join(dir, "ledger.json")}
	if _, err := Hit(context.Background(), f, "team", "loop a", "usage_limit", time.Now().Add(time.Hour), time.Now(), Breaker{}); err != nil {
		t.Fatal(err)
	}
	held, busy, err := files.Lock(f.Path + ".lock")
	if err != nil || busy {
		t.Fatalf("lock: busy %v, %v", busy, err)
	}
	defer held.Close()
	fresh := &File{Path: f.Path, Unbudgeted: true}
	r, err := Reserve(context.Background(), fresh, "team")
	if err != nil {
		t.Fatalf("Reserve waited for the lock: %v", err)
	}
	if err := r.Settle(context.Background(), Amount{USD: 1}); err != nil {
		t.Fatalf("Settle: %v", err)
	}
	e, err := Get(context.Background(), fresh, "team")
	if err != nil || e.LimitedBy != "loop a" {
		t.Fatalf("Get: %+v, %v", e, err)
	}
	empty := &File{Path: filepath.Join(dir, "new", "ledger.json"), Unbudgeted: true}
	if _, err := Reserve(context.Background(), empty, "team"); err != nil {
		t.Fatal(err)
	}
	if _, err := Get(context.Background(), empty, "team"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Dir(empty.Path)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("reading an empty ledger made its directory (%v)", err)
	}
}

// TestOneBurstIsOneHit: loops meeting one limit at once write resets a
// fraction of a second apart (gemini names them to the millisecond): the
// breaker counts one limit, and the account is limited until the latest.
func TestOneBurstIsOneHit(t *testing.T) {
	f := &File{Path: filepath.Join(t.TempDir(), "ledger.json")}
	now := time.Now()
	b := Breaker{Hits: 2, Window: time.Hour, Backoff: time.Minute}
	var e Entry
	for i, by := range []string{"loop a", "loop b", "loop c"} {
		var err error
		if e, err = Hit(context.Background(), f, "team", by, "rate_limited", now.Add(10*time.Second+time.Duration(i)*400*time.Millisecond), now, b); err != nil {
			t.Fatal(err)
		}
	}
	if !e.PausedUntil.IsZero() || len(e.Hits) != 1 || !e.LimitedUntil.Equal(now.Add(10800*time.Millisecond)) {
		t.Errorf("one burst: paused until %v, %d hits, limited until %v", e.PausedUntil, len(e.Hits), e.LimitedUntil.Sub(now))
	}
	e, err := Hit(context.Background(), f, "team", "loop a", "rate_limited", time.Time{}, now.Add(time.Minute), b)
	if err != nil || e.PausedUntil.IsZero() {
		t.Errorf("a second limit, with no reset, a minute later did not pause the account: %+v, %v", e, err)
	}
}

// TestCorruptFileIsSetAside: a ledger.json that is not JSON is moved
// aside, said by the read that found it, and the ledger starts again
// empty: later reads and writes work.
func TestCorruptFileIsSetAside(t *testing.T) {
	dir := t.TempDir()
	f := &File{Path: filepath.Join(dir, "ledger.json")}
	if err := os.WriteFile(f.Path, []byte(`{"team": {`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Get(context.Background(), f, "team"); err == nil || !strings.Contains(err.Error(), "moved to ledger.json.corrupt-") {
		t.Errorf("the read of a corrupt ledger: %v", err)
	}
	if aside, _ := filepath.Glob(f.Path + ".corrupt-*"); len(aside) != 1 {
		t.Errorf("set aside: %v", aside)
	}
	if _, err := Hit(context.Background(), f, "team", "loop a", "usage_limit", time.Now().Add(time.Hour), time.Now(), Breaker{}); err != nil {
		t.Fatalf("a write after: %v", err)
	}
	if e, err := Get(context.Background(), f, "team"); err != nil || e.LimitedBy != "loop a" {
		t.Errorf("a read after: %+v, %v", e, err)
	}
}
