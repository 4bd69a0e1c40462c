// Package logging writes rooda's progress and diagnostics to stderr, one
// line per event, filtered by level. Lines at info level read as the
// seeds show them ("[10:00:45] Iteration 1/3 completed in 45.2s
// (success)"); warnings and errors say so ("[10:02:35] ERROR: …").
package logging

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
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
}

// New returns a Logger writing lines at level and above to w, stamped with
// the local time.
func New(w io.Writer, level Level) *Logger {
	return &Logger{w: w, level: level, now: time.Now}
}

// WithClock makes the logger stamp lines with now instead of the wall
// clock: tests get the same bytes every run.
func (l *Logger) WithClock(now func() time.Time) *Logger {
	l.now = now
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
// level.
func (l *Logger) Detailf(level Level, format string, args ...any) {
	if l.Enabled(level) {
		l.write("  " + fmt.Sprintf(format, args...) + "\n")
	}
}

var prefixes = [...]string{"DEBUG: ", "", "WARN: ", "ERROR: "}

func (l *Logger) logf(level Level, format string, args ...any) {
	if !l.Enabled(level) {
		return
	}
	msg := strings.TrimRight(fmt.Sprintf(format, args...), "\n")
	stamp := l.now().Format("[15:04:05] ")
	l.write(stamp + prefixes[level] + msg + "\n")
}

func (l *Logger) write(s string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	io.WriteString(l.w, s)
}

// Duration writes a duration as the progress lines show it: "350ms" under
// a second, "45.2s" under a minute, "2m16s" under an hour, "1h2m3s"
// beyond.
func Duration(d time.Duration) string {
	if d < time.Second {
		return fmt.Sprintf("%dms", d.Milliseconds())
	}
	if d < time.Minute {
		return fmt.Sprintf("%.1fs", d.Seconds())
	}
	return d.Round(time.Second).String()
}
