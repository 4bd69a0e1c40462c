package session

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"

	"go.starlark.net/starlark"

	"rooda/host/journal"
)

// A run is durable: every call of it with an effect or an answer from
// outside — a loop and each of its iterations, run(), worktree(),
// git_merge(), parallel(), getenv(), now(), read(), exists() — is
// journaled in its record as it ends. A resumed run runs its script again
// from the top, and each call the journal holds is answered from it,
// nothing run again; the first call past the journal runs live. Since a
// script cannot reach anything but through these calls, it takes the
// same course again.

// cursorKey is the thread-local place of a thread's calls in the
// journal, set on the threads of parallel()'s branches; the main thread,
// and the threads that load modules, share the session's.
const cursorKey = "rooda.journal"

// cursor counts the calls of a thread.
type cursor struct {
	thread string
	seq    int
}

// next is the key of the thread's next call.
func (s *Session) next(thread *starlark.Thread) journal.Key {
	var c *cursor
	if thread != nil {
		c, _ = thread.Local(cursorKey).(*cursor)
	}
	if c == nil {
		s.mu.Lock()
		defer s.mu.Unlock()
		c = &s.main
	}
	c.seq++
	return journal.Key{Thread: c.thread, Seq: c.seq}
}

// call is a call as the journal keeps it, to be matched on a resume.
type call struct {
	op, pos, what string
}

// at is the journal's entry of the call at key, which gave result.
func (c call) at(key journal.Key, result json.RawMessage) journal.Entry {
	return journal.Entry{Kind: journal.Call, Key: key, Op: c.op, Pos: c.pos, What: c.what, Result: result}
}

// DiffersError is a call of a resumed run that is not the one its
// journal holds at that place: the script, a module it loads or the
// settings changed since the run began. The run stops there unless told
// to go on live from it (--force).
type DiffersError struct {
	Recorded, Asked journal.Entry
	// Settings, for a loop, are its settings that differ, recorded and
	// asked.
	Settings []string
}

func (e *DiffersError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "cannot resume: the run no longer makes the calls it made; the first that differs:\n  recorded: %s\n  asked:    %s\n", describeCall(e.Recorded), describeCall(e.Asked))
	for _, s := range e.Settings {
		fmt.Fprintf(&b, "    %s\n", s)
	}
	b.WriteString("(the script, a module it loads or the settings changed since the run began; --force goes on live from this call)")
	return b.String()
}

// ExitCode is a configuration error's.
func (e *DiffersError) ExitCode() int { return 1 }

// describeCall names a call as DiffersError shows it: "iterate(build) at
// main.star:12".
func describeCall(e journal.Entry) string {
	if e.Op == "" {
		return "no call (the run had ended its calls there)"
	}
	s := fmt.Sprintf("%s(%s)", e.Op, e.What)
	if e.Pos != "" {
		s += " at " + e.Pos
	}
	return s
}

// replaying is the journal's entry for the call c about to be made at
// key, when a resumed run's journal holds one: the call is answered
// from it. A recorded call that differs is an error, or, told to go on
// live (Options.Force), taken back with everything after it on its
// thread.
func (s *Session) replaying(key journal.Key, c call) (journal.Entry, bool, error) {
	book := s.book()
	if book == nil {
		return journal.Entry{}, false, nil
	}
	e, ok := book.Call(key)
	if !ok {
		return e, false, nil
	}
	if e.Op == c.op && e.Pos == c.pos && e.What == c.what {
		return e, true, nil
	}
	return e, false, s.differs(&DiffersError{Recorded: e, Asked: c.at(key, nil)})
}

// differs stops a resume at a call that differs from the journal's, or,
// told to go on live (Options.Force), takes back the journal's entries
// from that call on its thread, says so, and lets the call run live.
func (s *Session) differs(d *DiffersError) error {
	if !s.opts.Force {
		// The other threads of a parallel() stop too, rather than go on
		// live in a run whose resume is refused.
		s.abort(d)
		return d
	}
	s.Log().Warnf("resuming: %s differs from the recorded %s; going on live from it (--force)", describeCall(d.Asked), describeCall(d.Recorded))
	s.book().Void(d.Asked.Key)
	s.rec.Journal(journal.Entry{Kind: journal.Void, Key: d.Asked.Key}, false)
	return nil
}

// book is the journal of the run before it was resumed, nil when it was
// not.
func (s *Session) book() *journal.Book {
	if s.rec == nil {
		return nil
	}
	return s.rec.Book()
}

// journaled makes the call c of thread, live or, on a resume, from the
// journal (replayed says which): live runs it, and its result is
// journaled when it returns no error (an error ends the script, which a
// resume runs again); sync makes the entry durable at once, for a call
// whose effect must not be made twice.
func journaled[T any](s *Session, thread *starlark.Thread, c call, sync bool, live func() (T, error)) (v T, replayed bool, err error) {
	return journaledAt(s, thread, c, sync, func(journal.Key) (T, error) { return live() })
}

// journaledAt is journaled, live told the call's key (journal.Key{} for a
// run without a journal).
func journaledAt[T any](s *Session, thread *starlark.Thread, c call, sync bool, live func(journal.Key) (T, error)) (v T, replayed bool, err error) {
	if s.rec == nil {
		v, err = live(journal.Key{})
		return v, false, err
	}
	key := s.next(thread)
	e, ok, err := s.replaying(key, c)
	if err != nil {
		return v, false, err
	}
	if ok {
		if err := json.Unmarshal(e.Result, &v); err != nil {
			return v, true, fmt.Errorf("the journal's answer to %s: %w", describeCall(e), err)
		}
		return v, true, nil
	}
	if v, err = live(key); err != nil {
		return v, false, err
	}
	data, err := json.Marshal(v)
	if err != nil {
		return v, false, err
	}
	s.rec.Journal(c.at(key, data), sync)
	return v, false, nil
}

// Getenv is a script's getenv(name): journaled, so that a resumed run
// sees the environment its calls saw.
func (s *Session) Getenv(thread *starlark.Thread, pos, name string) (value string, set bool, err error) {
	type answer struct {
		Value string
		Set   bool
	}
	a, _, err := journaled(s, thread, call{"getenv", pos, name}, false, func() (answer, error) {
		v, ok := os.LookupEnv(name)
		return answer{v, ok}, nil
	})
	return a.Value, a.Set, err
}

// ScriptNow is a script's now(): the run's clock, journaled, so that a
// resumed run's script sees the times it saw.
func (s *Session) ScriptNow(thread *starlark.Thread, pos string) (time.Time, error) {
	t, _, err := journaled(s, thread, call{"now", pos, ""}, false, func() (time.Time, error) { return s.Now(), nil })
	return t, err
}

// startLoop is the journal's key of a loop about to start, and whether
// a resumed run's journal holds it: its iterations are then answered
// from there. Its settings are part of what it asks: a loop whose
// settings changed since is not the one recorded.
func (s *Session) startLoop(thread *starlark.Thread, op, pos, procedure string, settings []string) (journal.Key, error) {
	if s.rec == nil {
		return journal.Key{}, nil
	}
	key := s.next(thread)
	c := call{op: op, pos: pos, what: procedure}
	e, ok, err := s.replaying(key, c)
	if err != nil {
		return key, err
	}
	if ok {
		var recorded []string
		json.Unmarshal(e.Result, &recorded)
		changed := changedSettings(recorded, settings)
		if len(changed) == 0 {
			return key, nil
		}
		if !s.opts.Force {
			asked := c.at(key, nil)
			return key, s.differs(&DiffersError{Recorded: e, Asked: asked, Settings: changed})
		}
		// The same loop with other settings: what its iterations did
		// stands, judged under the settings given now.
		s.Log().Warnf("resuming: %s runs with other settings than it was recorded with (--force): %s", loopNamed(c), strings.Join(changed, "; "))
	}
	data, _ := json.Marshal(settings)
	s.rec.Journal(c.at(key, data), false)
	return key, nil
}

// changedSettings are the settings ("Max Iterations: 4") that differ
// between two lists, as "Max Iterations: 4 recorded, 3 asked".
func changedSettings(recorded, asked []string) []string {
	values := func(lines []string) map[string]string {
		m := map[string]string{}
		for _, l := range lines {
			name, value, _ := strings.Cut(l, ": ")
			m[name] = value
		}
		return m
	}
	was, now := values(recorded), values(asked)
	var changed []string
	for _, l := range asked {
		name, _, _ := strings.Cut(l, ": ")
		if old, ok := was[name]; (!ok && !isFact(name) || ok && old != now[name]) && !shownOnly[name] {
			changed = append(changed, fmt.Sprintf("%s: %s recorded, %s asked", name, orNone(old, ok), now[name]))
		}
	}
	for _, l := range recorded {
		name, _, _ := strings.Cut(l, ": ")
		if _, ok := now[name]; !ok && !shownOnly[name] && !isFact(name) {
			changed = append(changed, fmt.Sprintf("%s: %s recorded, not set now", name, was[name]))
		}
	}
	return changed
}

// shownOnly are the settings that change what a run shows, not what it
// does: a resume may give them anew.
var shownOnly = map[string]bool{"Log Level": true, "Log Format": true, "Log Timestamp Format": true, "Show AI Output": true}

func orNone(value string, set bool) string {
	if !set {
		return "not set"
	}
	return value
}

// loaded journals a module the script loads, with the hash of its
// source. A resumed run loads the same modules in the same order; one
// whose source changed since is said, once: its calls are checked
// against the journal as they come, and the first that differs stops the
// resume.
func (s *Session) loaded(display string, src []byte) error {
	sum := sha256.Sum256(src)
	hash := hex.EncodeToString(sum[:])
	recorded, _, err := journaled(s, nil, call{op: "load", what: display}, false, func() (string, error) { return hash, nil })
	if err == nil && recorded != hash {
		s.Log().Warnf("resuming: %s changed since the run began: each of its calls is checked against the journal, and the first that differs stops the resume", display)
	}
	return err
}

// startParallel is the journal's key of a parallel() call, whose
// branches count their calls from it (journal.Branch).
func (s *Session) startParallel(thread *starlark.Thread, calls []Call) (journal.Key, error) {
	if s.rec == nil {
		return journal.Key{}, nil
	}
	names := make([]string, len(calls))
	for i, c := range calls {
		names[i] = c.Fn.Name()
	}
	key := s.next(thread)
	c := call{op: "parallel", what: strings.Join(names, ", ")}
	if _, ok, err := s.replaying(key, c); ok || err != nil {
		return key, err
	}
	s.rec.Journal(c.at(key, nil), false)
	return key, nil
}
