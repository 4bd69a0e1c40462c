package ledger

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
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
			if _, err := Hit(context.Background(), f, "team", "loop", "usage_limit", now.Add(time.Duration(i)*time.Second), now, Breaker{}); err != nil {
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
