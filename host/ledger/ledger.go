// Package ledger keeps the accounts' ledger: one entry per account an
// agent's CLI spends from (a subscription, an API key), shared by every
// loop that runs an agent of that account, so that a usage limit one loop
// meets is waited for by all of them instead of met by each. A loop reads
// its account's entry before each try of its agent (Hold) and writes to
// it when its agent meets a limit with a reset (Hit).
//
// The entries are kept by a Store: a file under the user's state
// directory, read and written under a lock, for the loops of one machine
// (File); or a fleet's key-value bucket, reached through the worker that
// started the run on its unix socket (Dial). Both change an entry by
// compare-and-set on its revision (Update), so no two loops' writes are
// lost.
package ledger

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Entry is an account's entry.
type Entry struct {
	// LimitedUntil is when the limit a loop of the account met resets,
	// and Cause which limit it was (usage_limit, rate_limited).
	LimitedUntil time.Time `json:"limited_until,omitzero"`
	Cause        string    `json:"cause,omitempty"`
	// LimitedBy names the loop that met it.
	LimitedBy string `json:"limited_by,omitempty"`
	// Hits are the times limits were met within the breaker's window.
	Hits []time.Time `json:"hits,omitempty"`
	// PausedUntil is when the breaker's pause of the account ends.
	PausedUntil time.Time `json:"paused_until,omitzero"`
	// Budget is the entry's ceiling, if it has one (budget.go), and
	// Spending what its loops spent and hold against it.
	Budget *Budget `json:"budget,omitempty"`
	Spending
}

// Hold is a wait the account's entry asks of a loop before its next try:
// its account is limited, or paused by the breaker, until Until.
type Hold struct {
	Account string
	Until   time.Time
	// Paused is set when the breaker paused it; else a loop met a limit.
	Paused bool
	Cause  string
	By     string
}

// Held is the hold e asks of a loop at now; zero Until when none.
func (e Entry) Held(account string, now time.Time) Hold {
	h := Hold{Account: account, Cause: e.Cause, By: e.LimitedBy}
	if e.LimitedUntil.After(now) {
		h.Until = e.LimitedUntil
	}
	if e.PausedUntil.After(now) && e.PausedUntil.After(h.Until) {
		h.Until, h.Paused = e.PausedUntil, true
	}
	return h
}

// Store keeps the entries, each at a revision: 0 for an entry not yet
// written.
type Store interface {
	Get(ctx context.Context, account string) (Entry, uint64, error)
	// Put writes e over revision rev, and returns its new one;
	// ErrRevisionMoved when another wrote it since rev.
	Put(ctx context.Context, account string, e Entry, rev uint64) (uint64, error)
}

// ErrRevisionMoved is a Put over a revision another Put replaced.
var ErrRevisionMoved = errors.New("the account's entry changed since it was read")

// maxTries bounds the compare-and-set tries of one Update: many loops of
// one account writing at the same moment each win within a few.
const maxTries = 100

// Update reads account's entry, changes it, and writes it back over the
// revision it read, again while another loop wrote in between. change
// returning false leaves it as it was.
func Update(ctx context.Context, s Store, account string, change func(*Entry) bool) (Entry, error) {
	for range maxTries {
		e, rev, err := s.Get(ctx, account)
		if err != nil {
			return e, err
		}
		if !change(&e) {
			return e, nil
		}
		_, err = s.Put(ctx, account, e, rev)
		if !errors.Is(err, ErrRevisionMoved) {
			return e, err
		}
	}
	return Entry{}, fmt.Errorf("account %s: its entry changed %d times while it was being written", account, maxTries)
}

// Breaker pauses an account whose loops met Hits limits within Window,
// for Backoff; Hits 0 turns it off.
type Breaker struct {
	Hits    int
	Window  time.Duration
	Backoff time.Duration
}

// sameLimit is how far apart the resets that loops meeting one limit
// write may be: a CLI that names its reset to the millisecond (gemini)
// names a slightly different one to each loop of one burst.
const sameLimit = 5 * time.Second

// Hit records in account's entry a limit that a loop (by) met at now,
// which resets at reset (zero when the CLI named none): the account is
// limited until then, and the breaker may pause it. A limit the entry
// already has (met while the account is limited, with no reset or one
// within sameLimit of the entry's: another loop of the same burst, a
// loop that did not wait for it, an early try of a reset named to the
// minute) is not counted again: the breaker counts limits, not tries. It
// returns the entry as written.
func Hit(ctx context.Context, s Store, account, by, cause string, reset, now time.Time, b Breaker) (Entry, error) {
	return Update(ctx, s, account, func(e *Entry) bool {
		known := now.Before(e.LimitedUntil) && !reset.After(e.LimitedUntil.Add(sameLimit))
		if known && !reset.After(e.LimitedUntil) {
			return false
		}
		if reset.After(now) && reset.After(e.LimitedUntil) {
			e.LimitedUntil, e.Cause, e.LimitedBy = reset, cause, by
		}
		if known {
			return true
		}
		e.Hits = append(recent(e.Hits, now, b.Window), now)
		if b.Hits > 0 && len(e.Hits) >= b.Hits {
			e.PausedUntil = later(e.PausedUntil, now.Add(b.Backoff))
			e.Hits = nil
		}
		return true
	})
}

// recent are the hits within window of now (all with no window).
func recent(hits []time.Time, now time.Time, window time.Duration) []time.Time {
	var out []time.Time
	for _, h := range hits {
		if window <= 0 || now.Sub(h) < window {
			out = append(out, h)
		}
	}
	return out
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// Get is account's entry as it is.
func Get(ctx context.Context, s Store, account string) (Entry, error) {
	e, _, err := s.Get(ctx, account)
	return e, err
}
