package logging

import (
	"strings"
	"testing"
	"time"
)

func TestLevelsFilterAndPrefix(t *testing.T) {
	var b strings.Builder
	clock := func() time.Time { return time.Date(2026, 1, 2, 10, 0, 45, 0, time.Local) }
	l := New(&b, Warn).WithClock(clock)
	l.Debugf("debug %d", 1)
	l.Infof("info")
	l.Warnf("careful: %s", "x")
	l.Errorf("broken\n")
	l.Detailf(Warn, "detail")
	l.Detailf(Info, "hidden detail")
	want := "[10:00:45] WARN: careful: x\n[10:00:45] ERROR: broken\n  detail\n"
	if b.String() != want {
		t.Errorf("got %q want %q", b.String(), want)
	}
	b.Reset()
	New(&b, Debug).WithClock(clock).Debugf("seen")
	if b.String() != "[10:00:45] DEBUG: seen\n" {
		t.Errorf("debug line %q", b.String())
	}
}

func TestParseLevel(t *testing.T) {
	for name, want := range map[string]Level{"debug": Debug, "info": Info, "warn": Warn, "error": Error, "": Info} {
		if got := ParseLevel(name); got != want {
			t.Errorf("%q: %v", name, got)
		}
	}
}

func TestDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{
		45200 * time.Millisecond: "45.2s",
		30 * time.Millisecond:    "30ms", 999 * time.Microsecond: "0ms",
		136 * time.Second:          "2m16s",
		3723*time.Second + 400*1e6: "1h2m3s",
		59*time.Second + 990*1e6:   "60.0s",
	} {
		if got := Duration(d); got != want {
			t.Errorf("%v: got %q want %q", d, got, want)
		}
	}
}

// TestJSONEvents: one object per event, keys in a fixed order, the
// detail lines left to the event's fields.
func TestJSONEvents(t *testing.T) {
	var b strings.Builder
	clock := func() time.Time { return time.Date(2026, 1, 2, 10, 0, 45, 0, time.UTC) }
	l := New(&b, Info).WithClock(clock).AsJSON()
	l.Event(Info, "iteration_finished", []any{"iteration", 2, "outcome", "failure", "timed_out", false}, "Iteration %d completed", 2)
	l.Warnf("careful \"here\"")
	l.Detailf(Info, "not in JSON")
	l.Debugf("hidden")
	want := `{"time":"2026-01-02T10:00:45Z","level":"info","event":"iteration_finished","message":"Iteration 2 completed","iteration":2,"outcome":"failure","timed_out":false}` + "\n" +
		`{"time":"2026-01-02T10:00:45Z","level":"warn","event":"warning","message":"careful \"here\""}` + "\n"
	if b.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", b.String(), want)
	}
}

// TestFinalEventAtAnyLevel: in JSON the run's end is written even when the
// level hides info.
func TestFinalEventAtAnyLevel(t *testing.T) {
	var b strings.Builder
	l := New(&b, Error).AsJSON()
	l.Event(Info, FinalEvent, []any{"status", "max-iters"}, "Reached max iterations")
	l.Event(Info, "iteration_finished", nil, "hidden")
	if !strings.Contains(b.String(), `"event":"run_finished"`) || strings.Contains(b.String(), "hidden") {
		t.Errorf("got %s", b.String())
	}
}
