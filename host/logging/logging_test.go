package logging

import (
	"errors"
	"fmt"
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

// TestLineStandsApart: a line is written at any level, without a time
// stamp in text, and as an event in JSON.
func TestLineStandsApart(t *testing.T) {
	var b strings.Builder
	clock := func() time.Time { return time.Date(2026, 1, 2, 10, 0, 45, 0, time.UTC) }
	New(&b, Error).WithClock(clock).Line(Warn, "record_incomplete", []any{"dir", "runs/x"}, "the record in %s is incomplete", "runs/x")
	New(&b, Error).WithClock(clock).Line(Info, "dry_run_command", nil, "[dry-run] not running: %s\n", "make")
	if want := "WARN: the record in runs/x is incomplete\n[dry-run] not running: make\n"; b.String() != want {
		t.Errorf("text: got %q want %q", b.String(), want)
	}
	b.Reset()
	New(&b, Error).WithClock(clock).AsJSON().Line(Warn, "record_incomplete", []any{"dir", "runs/x"}, "the record is incomplete")
	if want := `{"time":"2026-01-02T10:00:45Z","level":"warn","event":"record_incomplete","message":"the record is incomplete","dir":"runs/x"}` + "\n"; b.String() != want {
		t.Errorf("JSON: got %s want %s", b.String(), want)
	}
}

// report is an error that formats itself, as a script's does.
type report struct{ text string }

func (r report) Error() string  { return "short" }
func (r report) Report() string { return r.text }

// TestFail: the final error reads as it always has in text, and is one
// event with the exit code in JSON, however many lines it has.
func TestFail(t *testing.T) {
	backtrace := "Traceback (most recent call last):\n  main.star:4:2: in <toplevel>\nError: broken"
	clock := func() time.Time { return time.Date(2026, 1, 2, 10, 0, 45, 0, time.UTC) }
	for _, tc := range []struct {
		err        error
		text, json string
	}{
		{errors.New("unknown procedure\nRun 'rooda list'.\n"), "Error: unknown procedure\nRun 'rooda list'.\n",
			`{"time":"2026-01-02T10:00:45Z","level":"error","event":"error","message":"unknown procedure\nRun 'rooda list'.","exit_code":1}` + "\n"},
		{fmt.Errorf("in a run: %w", report{backtrace}), backtrace + "\n",
			`{"time":"2026-01-02T10:00:45Z","level":"error","event":"error","message":"Traceback (most recent call last):\n  main.star:4:2: in \u003ctoplevel\u003e\nError: broken","exit_code":1}` + "\n"},
		{errors.New(""), "", ""},
	} {
		var text, js strings.Builder
		New(&text, Error).Fail(tc.err, 1)
		New(&js, Error).WithClock(clock).AsJSON().Fail(tc.err, 1)
		if text.String() != tc.text {
			t.Errorf("text: got %q want %q", text.String(), tc.text)
		}
		if js.String() != tc.json {
			t.Errorf("JSON: got %s want %s", js.String(), tc.json)
		}
	}
}

// TestTimestampFormats: each loop.log_timestamp_format stamps a text line
// as it says, relative ones from the run's start; JSON keeps its time.
func TestTimestampFormats(t *testing.T) {
	zone := time.FixedZone("CET", 3600)
	start := time.Date(2026, 1, 2, 10, 0, 0, 0, zone)
	now := start.Add(62*time.Second + 345*time.Millisecond)
	clock := func() time.Time { return now }
	for format, want := range map[string]string{
		"":         "[10:01:02] hello\n",
		"time":     "[10:01:02] hello\n",
		"time-ms":  "[10:01:02.345] hello\n",
		"relative": "[+1m02s] hello\n",
		"iso":      "[2026-01-02T10:01:02.345+01:00] hello\n",
		"none":     "hello\n",
	} {
		var b strings.Builder
		New(&b, Info).WithClock(clock).WithTimestamps(format, start).Infof("hello")
		if b.String() != want {
			t.Errorf("%q: got %q want %q", format, b.String(), want)
		}
	}
	var b strings.Builder
	New(&b, Info).WithClock(clock).WithTimestamps("none", start).AsJSON().Infof("hello")
	if want := `{"time":"2026-01-02T09:01:02.345Z","level":"info","event":"log","message":"hello"}` + "\n"; b.String() != want {
		t.Errorf("JSON: got %s want %s", b.String(), want)
	}
}

func TestElapsed(t *testing.T) {
	for d, want := range map[time.Duration]string{
		0: "0s", -time.Second: "0s", 999 * time.Millisecond: "0s", 45 * time.Second: "45s",
		62 * time.Second: "1m02s", 3723 * time.Second: "1h02m03s", 26 * time.Hour: "26h00m00s",
	} {
		if got := Elapsed(d); got != want {
			t.Errorf("%v: got %q want %q", d, got, want)
		}
	}
}

// TestLoopNamed: a logger of one of several loops that run at once names
// the loop after the time stamp, and in JSON as the "loop" field.
func TestLoopNamed(t *testing.T) {
	clock := func() time.Time { return time.Date(2026, 1, 2, 10, 0, 1, 0, time.UTC) }
	var text, js strings.Builder
	New(&text, Info).WithClock(clock).WithLoop("task-a").Infof("Iteration 1/3 starting...")
	New(&js, Info).WithClock(clock).WithLoop("task-a").AsJSON().Event(Info, "iteration_started", []any{"iteration", 1}, "Iteration 1/3 starting...")
	if want := "[10:00:01] [task-a] Iteration 1/3 starting...\n"; text.String() != want {
		t.Errorf("text: %q, want %q", text.String(), want)
	}
	if want := `{"time":"2026-01-02T10:00:01Z","level":"info","event":"iteration_started","message":"Iteration 1/3 starting...","loop":"task-a","iteration":1}` + "\n"; js.String() != want {
		t.Errorf("json: %s\nwant: %s", js.String(), want)
	}
}

// TestQuotedTextCannotDriveTheTerminal: what a message quotes (a
// procedure's name, an agent's words) is written with its control
// characters shown, in text and in JSON; a report keeps its lines.
func TestQuotedTextCannotDriveTheTerminal(t *testing.T) {
	var text, js strings.Builder
	clock := func() time.Time { return time.Date(2026, 1, 2, 10, 0, 45, 0, time.UTC) }
	New(&text, Info).WithClock(clock).WithTimestamps("none", time.Time{}).Infof("Starting procedure: %s", "evil\x1b[2J\u009b")
	New(&text, Info).Detailf(Warn, "> %s", "reset \x1bc")
	New(&text, Info).Fail(errors.New("first line\nsecond \x1b]0;title\x07"), 1)
	want := "Starting procedure: evil\\x1b[2J\\u009b\n  > reset \\x1bc\nError: first line\nsecond \\x1b]0;title\\a\n"
	if text.String() != want {
		t.Errorf("text: got %q want %q", text.String(), want)
	}
	New(&js, Info).WithClock(clock).AsJSON().Infof("clears \u009b2J")
	if want := `"message":"clears \u009b2J"`; !strings.Contains(js.String(), want) {
		t.Errorf("JSON: got %q, want it to hold %q", js.String(), want)
	}
}
