// Package statusline keeps one line redrawn in place at the bottom of a
// terminal while a run goes on: the procedure, the iteration, how long
// the iteration and the run have taken, what the agent said or did last,
// what it spent so far, and a usage limit's countdown.
//
// Everything else the run writes to that terminal goes through the
// line's writers (Line.Writer): each whole line of it is written above
// the status line, which is cleared first and drawn again after, so that
// neither tears the other. A writer keeps a partial line until its
// newline. The line is cut to the terminal's width, read on every
// redraw, so that it never wraps.
package statusline

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"rooda/host/logging"
	"rooda/host/loop"
)

// clear returns the cursor to the start of the line and erases it.
const clear = "\r\x1b[K"

// The status line's look, unless NO_COLOR: dim, so that it reads as
// apart from the log.
const (
	dim   = "\x1b[2m"
	reset = "\x1b[0m"
)

// maxPending bounds a writer's partial line: an agent that prints a
// megabyte without a newline is shown in pieces, not kept whole.
const maxPending = 16 << 10

// maxLast bounds the agent's last line as it is kept.
const maxLast = 512

// Line is the status line of one run on one terminal. It is safe for
// concurrent use. It draws nothing until a loop's first iteration
// starts.
type Line struct {
	mu    sync.Mutex
	term  io.Writer
	width func() int
	now   func() time.Time
	color bool

	procedure string
	iteration int
	max       int
	running   bool
	runStart  time.Time
	iterStart time.Time
	iterTook  time.Duration
	spent     loop.Spend
	// said has a lock of its own, so that the agent's output is never
	// held up by a terminal that blocks (a paused terminal, a slow ssh).
	said        *lastSaid
	waitCause   string
	waitUntil   time.Time
	shown       bool // a status line is on the screen
	closed      bool
	hidden      bool // between Hide and Show
	stopTicking chan struct{}
	ticked      chan struct{}
	// writers are the Writers made, whose partial lines Close writes.
	writers []*lineWriter
	// onClose releases what OnTerminal took (the SIGWINCH watch).
	onClose func()
}

// Options configure a Line.
type Options struct {
	// Width gives the terminal's width in columns; 0 or less is taken as
	// 80.
	Width func() int
	// Now is the clock; nil is the wall clock.
	Now func() time.Time
	// Color draws the line dim; off for NO_COLOR.
	Color bool
	// Tick is how often the line is drawn again while nothing is
	// written; 0 draws it only when something is.
	Tick time.Duration
	// Redraw, when set, draws the line again at once each time it
	// receives (SIGWINCH: the width may have changed).
	Redraw <-chan os.Signal
}

// New starts a status line drawn on term.
func New(term io.Writer, opts Options) *Line {
	l := &Line{said: &lastSaid{}, term: term, width: opts.Width, now: opts.Now, color: opts.Color, stopTicking: make(chan struct{}), ticked: make(chan struct{})}
	if l.now == nil {
		l.now = time.Now
	}
	if l.width == nil {
		l.width = func() int { return 80 }
	}
	l.runStart = l.now()
	go l.tick(opts.Tick, opts.Redraw)
	return l
}

// tick draws the line again every period, and at each redraw, until
// Close.
func (l *Line) tick(period time.Duration, redraw <-chan os.Signal) {
	defer close(l.ticked)
	var ticks <-chan time.Time
	if period > 0 {
		t := time.NewTicker(period)
		defer t.Stop()
		ticks = t.C
	}
	for {
		select {
		case <-l.stopTicking:
			return
		case <-ticks:
		case <-redraw:
		}
		l.mu.Lock()
		l.draw()
		l.mu.Unlock()
	}
}

// Close stops the line and clears it from the screen, so that what comes
// next (the final report, the shell's prompt) starts on a clean line.
func (l *Line) Close() {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return
	}
	l.closed = true
	l.erase()
	for _, lw := range l.writers {
		lw.w.Write(lw.pending)
		lw.pending = nil
	}
	l.mu.Unlock()
	close(l.stopTicking)
	<-l.ticked
	if l.onClose != nil {
		l.onClose()
	}
}

// Hide clears the line and draws it no more until Show: rooda is about
// to stop (Ctrl+Z), and the shell writes below it.
func (l *Line) Hide() {
	l.update(func() { l.hidden = true; l.erase() })
}

// Show draws the line again, at once: rooda goes on (fg).
func (l *Line) Show() {
	l.update(func() { l.hidden = false })
}

// Loop names the procedure of the loop about to run.
func (l *Line) Loop(procedure string) {
	l.update(func() { l.procedure = procedure })
}

// IterationStarted starts counting an iteration's time (loop.Observer).
func (l *Line) IterationStarted(req loop.Request) {
	l.update(func() {
		l.iteration, l.max, l.running = req.Iteration, req.MaxIterations, true
		l.iterStart = l.now()
		l.said.reset()
	})
}

// IterationFinished adds what the iteration spent (loop.Observer).
func (l *Line) IterationFinished(it *loop.Iteration) {
	l.update(func() {
		l.running, l.iterTook = false, l.now().Sub(l.iterStart)
		l.spent = l.spent.Add(it.Spent)
	})
}

// LimitWaiting counts down a wait for an agent's limit to reset, or its
// outage to pass (engine.Output.LimitWaiting).
func (l *Line) LimitWaiting(w loop.LimitWait) {
	l.update(func() { l.waitCause, l.waitUntil = w.Cause, w.Until })
}

// update changes what the line says and draws it again.
func (l *Line) update(change func()) {
	l.mu.Lock()
	defer l.mu.Unlock()
	change()
	l.draw()
}

// Agent is a writer of the agent's output (its text, or the readable
// transcript of a CLI's JSON): the line keeps its last line, bounded,
// to show what the agent says or does now.
func (l *Line) Agent() io.Writer { return agentTap{l} }

type agentTap struct{ l *Line }

func (t agentTap) Write(p []byte) (int, error) {
	t.l.said.write(p)
	return len(p), nil
}

// lastSaid keeps the last line that is not blank of what the agent says,
// and the line it is writing now, each cut to its last maxLast bytes.
type lastSaid struct {
	mu            sync.Mutex
	done, current string
}

func (s *lastSaid) reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.done, s.current = "", ""
}

func (s *lastSaid) write(p []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			s.current = keepEnd(s.current + string(p))
			return
		}
		if line := loop.PlainLine(keepEnd(s.current + string(p[:i]))); line != "" {
			s.done = line
		}
		s.current, p = "", p[i+1:]
	}
}

// line is the line being written, else the last one written, each as a
// terminal would show it (loop.PlainLine): an agent's colours are not
// shown as text, and of a progress bar redrawn only its last state.
func (s *lastSaid) line() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if line := loop.PlainLine(s.current); line != "" {
		return line
	}
	return s.done
}

// keepEnd is s cut to its last maxLast bytes, whole runes only.
func keepEnd(s string) string {
	if len(s) <= maxLast {
		return s
	}
	return strings.ToValidUTF8(s[len(s)-maxLast:], "")
}

// Writer is w with the status line kept below what it writes: each whole
// line is written after the status line is cleared, which is drawn again
// after. A partial line waits for its newline (or Close).
func (l *Line) Writer(w io.Writer) io.Writer {
	l.mu.Lock()
	defer l.mu.Unlock()
	lw := &lineWriter{l: l, w: w}
	l.writers = append(l.writers, lw)
	return lw
}

type lineWriter struct {
	l       *Line
	w       io.Writer
	pending []byte
}

func (lw *lineWriter) Write(p []byte) (int, error) {
	l := lw.l
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return lw.w.Write(p)
	}
	lw.pending = append(lw.pending, p...)
	end := bytes.LastIndexByte(lw.pending, '\n') + 1
	if end == 0 && len(lw.pending) < maxPending {
		return len(p), nil
	}
	whole := lw.pending[:end]
	if end == 0 {
		// Too long to wait for its newline: shown as a line of its own.
		whole = append(lw.pending, '\n')
		end = len(lw.pending)
	}
	l.erase()
	_, err := lw.w.Write(whole)
	lw.pending = append(lw.pending[:0], lw.pending[end:]...)
	l.draw()
	if err != nil {
		return 0, err
	}
	return len(p), nil
}

// erase clears the status line from the screen, if it is there.
func (l *Line) erase() {
	if l.shown {
		io.WriteString(l.term, clear)
		l.shown = false
	}
}

// draw writes the status line again, in place, once an iteration has
// started.
func (l *Line) draw() {
	if l.closed || l.hidden || l.iteration == 0 {
		return
	}
	text := Cut(l.text(l.now()), l.width()-1)
	if l.color {
		text = dim + text + reset
	}
	io.WriteString(l.term, clear+text)
	l.shown = true
}

// text is what the status line says at now, before it is cut, its most
// telling facts first, so that a narrow terminal still shows them:
// "build 2/3 · 42s (run 3m05s) · 1,234 tokens, $0.01 · Reading main.go".
func (l *Line) text(now time.Time) string {
	label := strings.TrimSpace(l.procedure + " " + loop.Label(l.iteration, l.max))
	run := "run " + logging.Elapsed(now.Sub(l.runStart))
	parts := []string{label}
	switch {
	case now.Before(l.waitUntil):
		parts = append(parts, fmt.Sprintf("waiting for %s, %s left (%s)", waitingFor(l.waitCause), logging.Elapsed(l.waitUntil.Sub(now)), run))
	case l.running:
		parts = append(parts, fmt.Sprintf("%s (%s)", logging.Elapsed(now.Sub(l.iterStart)), run))
	default:
		parts = append(parts, "took "+logging.Elapsed(l.iterTook), run)
	}
	if spent := l.spent.String(); spent != "" {
		parts = append(parts, spent)
	}
	if said := l.said.line(); l.running && said != "" {
		parts = append(parts, said)
	}
	return strings.Join(parts, " · ")
}

// waitingFor is what a wait of cause waits for: "the network", or the
// limit, "usage_limit".
func waitingFor(cause string) string {
	switch cause {
	case "network":
		return "the network"
	case loop.CauseAccountLimited:
		return "the account's limit"
	case loop.CauseAccountPaused:
		return "the account's pause"
	}
	return cause
}

// Cut is text made safe for one line of a terminal: each control
// character (an agent's escape sequences, tabs) a space, and at most
// width runes, the cut marked with "…". A width below 1 leaves nothing.
func Cut(text string, width int) string {
	if width < 1 {
		return ""
	}
	keep := width
	if utf8.RuneCountInString(text) > width {
		keep = width - 1
	}
	var b strings.Builder
	for _, r := range text {
		if keep == 0 {
			b.WriteRune('…')
			break
		}
		if unicode.IsControl(r) {
			r = ' '
		}
		b.WriteRune(r)
		keep--
	}
	return b.String()
}
