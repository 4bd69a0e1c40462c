// Package logging writes rooda's progress and diagnostics to stderr, one
// line per event, filtered by level. Lines at info level read as the
// seeds show them ("[10:00:45] Iteration 1/3 completed in 45.2s
// (success)"); warnings and errors say so ("[10:02:35] ERROR: …").
package logging

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"rooda/host/shown"
)

// Level orders how much is logged: a logger at Warn drops Debug and Info.
type Level int

const (
	Debug Level = iota
	Info
	Warn
	Error
)

var levelNames = [...]string{"debug", "info", "warn", "error"}

func (l Level) String() string { return levelNames[l] }

// ParseLevel reads "debug", "info", "warn" or "error". The configuration
// has already refused anything else, so an unknown name means Info.
func ParseLevel(name string) Level {
	for i, n := range levelNames {
		if n == name {
			return Level(i)
		}
	}
	return Info
}

// Logger writes lines to one writer. It is safe for concurrent use, so
// that a signal handler and the loop can both log.
type Logger struct {
	mu    sync.Mutex
	w     io.Writer
	level Level
	now   func() time.Time
	json  bool
	// stampFormat is loop.log_timestamp_format ("" is time), and start
	// the moment a relative stamp counts from.
	stampFormat string
	start       time.Time
	// loop names the loop of every line when several run at once: in
	// text after the time stamp, in JSON as the "loop" field.
	loop string
	// held gathers the lines written between Hold and Release.
	held    []byte
	holding bool
}

// New returns a Logger writing lines at level and above to w, stamped with
// the local time.
func New(w io.Writer, level Level) *Logger {
	return &Logger{w: w, level: level, now: time.Now}
}

// Configured is a logger at a configured level ("debug" …) and format
// ("text" or "json"), as the loop: settings give them.
func Configured(w io.Writer, level, format string) *Logger {
	l := New(w, ParseLevel(level))
	if format == "json" {
		l.AsJSON()
	}
	return l
}

// WithClock makes the logger stamp lines with now instead of the wall
// clock: tests get the same bytes every run.
func (l *Logger) WithClock(now func() time.Time) *Logger {
	l.now = now
	return l
}

// WithTimestamps makes text lines stamped as loop.log_timestamp_format
// says: "time" ([15:04:05], the default), "time-ms" ([15:04:05.000]),
// "relative" (since start: [+1m02s]), "iso" (RFC 3339 with milliseconds)
// or "none". JSON events keep their own "time".
func (l *Logger) WithTimestamps(format string, start time.Time) *Logger {
	l.stampFormat, l.start = format, start
	return l
}

// WithLoop names the loop of every line the logger writes, for a run
// whose loops run at once (parallel()): "[10:00:01] [task-a] Iteration 1/3".
func (l *Logger) WithLoop(name string) *Logger {
	l.loop = name
	return l
}

// stamp is the time stamp that starts a text line, with its space, and
// the loop's name when the logger has one.
func (l *Logger) stamp() string {
	if l.loop != "" {
		return l.timeStamp() + "[" + l.loop + "] "
	}
	return l.timeStamp()
}

func (l *Logger) timeStamp() string {
	now := l.now()
	switch l.stampFormat {
	case "none":
		return ""
	case "time-ms":
		return now.Format("[15:04:05.000] ")
	case "iso":
		return now.Format("[2006-01-02T15:04:05.000Z07:00] ")
	case "relative":
		return "[+" + Elapsed(now.Sub(l.start)) + "] "
	}
	return now.Format("[15:04:05] ")
}

// Elapsed writes a time elapsed (since the run started, for relative
// stamps and the status line) in whole seconds, cut, not rounded, so that
// it never reads later than it is: "0s", "45s", "1m02s", "1h02m03s". The
// minutes and seconds keep two digits once a larger unit leads, so that
// the stamps line up.
func Elapsed(d time.Duration) string {
	secs := int64(max(d, 0) / time.Second)
	h, m, sec := secs/3600, secs/60%60, secs%60
	switch {
	case h > 0:
		return fmt.Sprintf("%dh%02dm%02ds", h, m, sec)
	case m > 0:
		return fmt.Sprintf("%dm%02ds", m, sec)
	}
	return fmt.Sprintf("%ds", sec)
}

// AsJSON makes the logger write one JSON object per event instead of a
// line (--log-format json), for CI and log aggregators.
func (l *Logger) AsJSON() *Logger {
	l.json = true
	return l
}

// Enabled reports whether lines at level are written.
func (l *Logger) Enabled(level Level) bool { return l != nil && level >= l.level }

func (l *Logger) Debugf(format string, args ...any) { l.logf(Debug, format, args...) }
func (l *Logger) Infof(format string, args ...any)  { l.logf(Info, format, args...) }
func (l *Logger) Warnf(format string, args ...any)  { l.logf(Warn, format, args...) }
func (l *Logger) Errorf(format string, args ...any) { l.logf(Error, format, args...) }

// Detailf writes an indented line without a time stamp, which belongs to
// the line before it (the timing summary under the final status), at
// level. In JSON the event before it carries the same facts as fields.
func (l *Logger) Detailf(level Level, format string, args ...any) {
	if l.Enabled(level) && !l.json {
		l.write(shown.Text("  "+fmt.Sprintf(format, args...)) + "\n")
	}
}

// Event logs a named event: in text, its message as any line; in JSON, an
// object with the time, level, event, message and fields, which are
// key-value pairs in the order given.
func (l *Logger) Event(level Level, event string, fields []any, format string, args ...any) {
	if !l.Enabled(level) && !(l.json && event == FinalEvent) {
		return
	}
	msg := strings.TrimRight(fmt.Sprintf(format, args...), "\n")
	l.emit(level, event, fields, msg, l.stamp()+prefixes[level]+msg)
}

// Line logs a named event that stands apart from the log's progress, as
// the record's and a dry run's notes do: at any level, and in text
// without a time stamp, as those lines have always read. In JSON it is an
// event like any other.
func (l *Logger) Line(level Level, event string, fields []any, format string, args ...any) {
	msg := strings.TrimRight(fmt.Sprintf(format, args...), "\n")
	l.emit(level, event, fields, msg, prefixes[level]+msg)
}

// ErrorEvent is the event of the error rooda ends with.
const ErrorEvent = "error"

// Fail writes the error rooda ends with, at any level, with the exit code
// it ends with. In text it reads "Error: …", or, for an error that
// reports itself (a script's backtrace, every problem a check found), as
// that report stands. In JSON it is one "error" event whose message holds
// every line of it. An error with no message (the loop has said how the
// run ended) writes nothing.
func (l *Logger) Fail(err error, code int) {
	var reporter interface{ Report() string }
	if errors.As(err, &reporter) {
		report := reporter.Report()
		l.emit(Error, ErrorEvent, []any{"exit_code", code}, strings.TrimRight(report, "\n"), report)
		return
	}
	if msg := strings.TrimRight(err.Error(), "\n"); msg != "" {
		l.emit(Error, ErrorEvent, []any{"exit_code", code}, msg, "Error: "+msg)
	}
}

// emit writes one event: text, a line of it, in text; in JSON an object
// of the event, its message and fields. Either is made safe for a
// terminal here, once for every line: a message quotes what rooda was
// given (a configuration's values, a procedure's name, an agent's last
// words, the names of its processes), and a terminal must not obey the
// escapes in them.
func (l *Logger) emit(level Level, event string, fields []any, msg, text string) {
	if l.json {
		if l.loop != "" {
			fields = append([]any{"loop", l.loop}, fields...)
		}
		l.write(string(shown.JSON([]byte(jsonEvent(l.now(), level, event, msg, fields)))))
		return
	}
	l.write(shown.Text(text) + "\n")
}

// jsonEvent writes one event as a JSON object on one line, its keys in a
// fixed order.
func jsonEvent(now time.Time, level Level, event, msg string, fields []any) string {
	var b strings.Builder
	pairs := append([]any{"time", now.UTC().Format(time.RFC3339Nano), "level", level.String(), "event", event, "message", msg}, fields...)
	b.WriteByte('{')
	for i := 0; i+1 < len(pairs); i += 2 {
		if i > 0 {
			b.WriteByte(',')
		}
		key, _ := json.Marshal(fmt.Sprint(pairs[i]))
		value, err := json.Marshal(pairs[i+1])
		if err != nil {
			value, _ = json.Marshal(fmt.Sprint(pairs[i+1]))
		}
		b.Write(key)
		b.WriteByte(':')
		b.Write(value)
	}
	b.WriteString("}\n")
	return b.String()
}

var prefixes = [...]string{"DEBUG: ", "", "WARN: ", "ERROR: "}

// FinalEvent is the event that ends a run. In JSON it is written at any
// level: a program reading the log must learn how the run ended.
const FinalEvent = "run_finished"

// plainEvents name the events of the plain logging calls, by level.
var plainEvents = [...]string{"debug", "log", "warning", "error"}

func (l *Logger) logf(level Level, format string, args ...any) {
	l.Event(level, plainEvents[level], nil, format, args...)
}

func (l *Logger) write(s string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.holding {
		io.WriteString(l.w, s)
		return
	}
	l.held = append(l.held, s...)
	if len(l.held) >= heldMax {
		l.flush()
	}
}

// heldMax bounds what Hold gathers before it is written all the same.
const heldMax = 64 << 10

// Hold gathers the lines logged from now on, written together as Release
// is called or as they reach 64 KiB: a resume's replay logs thousands of
// iterations microseconds apart, and a write of each (a reader woken for
// each) took a quarter of the resume of 5,000 (docs/performance.md).
func (l *Logger) Hold() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.holding = true
}

// Release writes what Hold gathered, and lines as they come again.
func (l *Logger) Release() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.flush()
	l.holding = false
}

func (l *Logger) flush() {
	if len(l.held) > 0 {
		l.w.Write(l.held)
		l.held = l.held[:0]
	}
}

// Count writes n of a thing with its word in the singular or plural:
// "1 iteration", "3 iterations".
func Count(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
