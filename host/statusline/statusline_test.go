package statusline

import (
	"strings"
	"sync"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"rooda/host/agentstream"
	"rooda/host/loop"

	"rooda/internal/syncbuf"
)

// testLine is a line on a screen of width columns, its clock at t0 plus
// what *at says.
func testLine(width int, at *time.Duration) (*Line, *syncbuf.Buffer) {
	t0 := time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)
	s := &syncbuf.Buffer{}
	l := New(s, Options{Width: func() int { return width }, Now: func() time.Time { return t0.Add(*at) }})
	return l, s
}

// lastDrawn is the last status line drawn on the screen.
func lastDrawn(t *testing.T, screen string) string {
	t.Helper()
	i := strings.LastIndex(screen, clear)
	if i < 0 {
		t.Fatalf("no status line drawn in %q", screen)
	}
	return screen[i+len(clear):]
}

func TestRendersIterationTimesSpendAndLastLine(t *testing.T) {
	var at time.Duration
	l, s := testLine(200, &at)
	defer l.Close()
	l.Loop("build")
	at = 5 * time.Second
	l.IterationStarted(loop.Request{Iteration: 1, MaxIterations: 3})
	l.Agent().Write([]byte("reading main.go\nrunning the tests"))
	at = 47 * time.Second
	l.IterationFinished(&loop.Iteration{Spent: loop.Spend{Tokens: agentstream.Usage{Input: 1000, Output: 234}, CostUSD: 0.0123, Costed: true}})
	at = 50 * time.Second
	l.IterationStarted(loop.Request{Iteration: 2, MaxIterations: 3})
	l.Agent().Write([]byte("→ Bash: go test ./...\n"))
	at = 3*time.Minute + 5*time.Second
	l.Loop("build") // draws again at the new time
	want := "build 2/3 · 2m15s (run 3m05s) · 1,234 tokens, $0.01 · → Bash: go test ./..."
	if got := lastDrawn(t, s.String()); got != want {
		t.Errorf("status line:\n got %q\nwant %q", got, want)
	}
}

func TestDrawsNothingBeforeAnIteration(t *testing.T) {
	var at time.Duration
	l, s := testLine(80, &at)
	l.Loop("build")
	l.Writer(s).Write([]byte("[10:00:00] Starting\n"))
	l.Close()
	if got := s.String(); got != "[10:00:00] Starting\n" {
		t.Errorf("screen = %q, want the log line alone", got)
	}
}

func TestLimitWaitCountsDown(t *testing.T) {
	var at time.Duration
	l, s := testLine(200, &at)
	defer l.Close()
	l.IterationStarted(loop.Request{Iteration: 2})
	t0 := time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)
	l.LimitWaiting(loop.LimitWait{Cause: "usage_limit", Until: t0.Add(5 * time.Minute)})
	at = 48 * time.Second
	l.Loop("build")
	want := "build 2 · waiting for usage_limit, 4m12s left (run 48s)"
	if got := lastDrawn(t, s.String()); got != want {
		t.Errorf("status line:\n got %q\nwant %q", got, want)
	}
	at = 6 * time.Minute
	l.Loop("build")
	if got := lastDrawn(t, s.String()); strings.Contains(got, "waiting") {
		t.Errorf("the wait is over, yet: %q", got)
	}
	// An outage's backoff waits for the network.
	l.LimitWaiting(loop.LimitWait{Cause: "network", Until: t0.Add(7 * time.Minute), Backoff: true})
	l.Loop("build")
	if got, want := lastDrawn(t, s.String()), "build 2 · waiting for the network, 1m00s left (run 6m00s)"; got != want {
		t.Errorf("status line:\n got %q\nwant %q", got, want)
	}
	// A limit another loop of the account met.
	l.LimitWaiting(loop.LimitWait{Cause: loop.CauseAccountLimited, Account: "team", Until: t0.Add(8 * time.Minute)})
	l.Loop("build")
	if got, want := lastDrawn(t, s.String()), "build 2 · waiting for the account's limit, 2m00s left (run 6m00s)"; got != want {
		t.Errorf("status line:\n got %q\nwant %q", got, want)
	}
}

// TestCutsToWidthInRunes: a line of multi-byte runes is cut by runes,
// one column short of the width (a character in the last column leaves
// some terminals about to wrap), and never splits a rune.
func TestCutsToWidthInRunes(t *testing.T) {
	var at time.Duration
	for _, width := range []int{20, 7, 2, 1} {
		l, s := testLine(width, &at)
		l.Loop("größe")
		l.IterationStarted(loop.Request{Iteration: 1, MaxIterations: 2})
		l.Agent().Write([]byte("ünïcödé ünïcödé ünïcödé"))
		got := lastDrawn(t, s.String())
		l.Close()
		if !utf8.ValidString(got) {
			t.Errorf("width %d: invalid UTF-8 %q", width, got)
		}
		if n := utf8.RuneCountInString(got); n > width-1 {
			t.Errorf("width %d: %d runes in %q", width, n, got)
		}
		if width == 20 && got != "größe 1/2 · 0s (ru…" {
			t.Errorf("width 20: %q", got)
		}
	}
}

func TestCutMakesControlCharactersSpaces(t *testing.T) {
	if got := Cut("a\x1b[31mb\tc", 80); got != "a [31mb c" {
		t.Errorf("Cut = %q", got)
	}
	if got := Cut("abcdef", 6); got != "abcdef" {
		t.Errorf("a text of the width is cut: %q", got)
	}
	if got := Cut("abcdefg", 6); got != "abcde…" {
		t.Errorf("Cut = %q", got)
	}
}

// TestLogLinesAboveTheLine: a log line clears the status line, is
// written whole, and the status line is drawn again under it.
func TestLogLinesAboveTheLine(t *testing.T) {
	var at time.Duration
	l, s := testLine(80, &at)
	l.IterationStarted(loop.Request{Iteration: 1, MaxIterations: 2})
	log := l.Writer(s)
	log.Write([]byte("[10:00:01] first\n"))
	l.Close()
	want := clear + "1/2 · 0s (run 0s)" +
		clear + "[10:00:01] first\n" + clear + "1/2 · 0s (run 0s)" +
		clear
	if got := s.String(); got != want {
		t.Errorf("screen:\n got %q\nwant %q", got, want)
	}
}

// TestPartialLinesWaitForTheirNewline: pieces of a line are written
// together once the line is whole; a piece left at Close is written
// then.
func TestPartialLinesWaitForTheirNewline(t *testing.T) {
	var at time.Duration
	l, s := testLine(80, &at)
	l.IterationStarted(loop.Request{Iteration: 1})
	log := l.Writer(s)
	log.Write([]byte("[10:00:01] fir"))
	if strings.Contains(s.String(), "fir") {
		t.Fatalf("a partial line was written: %q", s.String())
	}
	log.Write([]byte("st\nsecond line, "))
	log.Write([]byte("and more\nthird"))
	l.Close()
	got := s.String()
	for _, line := range []string{clear + "[10:00:01] first\n", "second line, and more\n" + clear} {
		if !strings.Contains(got, line) {
			t.Errorf("screen lacks %q:\n%q", line, got)
		}
	}
	if !strings.HasSuffix(got, clear+"third") {
		t.Errorf("the partial line left is not written at Close, after the line is cleared: %q", got)
	}
}

func TestNoColorAndColor(t *testing.T) {
	s := &syncbuf.Buffer{}
	l := New(s, Options{Color: true})
	l.IterationStarted(loop.Request{Iteration: 1})
	l.Close()
	if !strings.Contains(s.String(), dim) {
		t.Errorf("no colour with Color: %q", s.String())
	}
	s = &syncbuf.Buffer{}
	l = New(s, Options{})
	l.IterationStarted(loop.Request{Iteration: 1})
	l.Close()
	if strings.Contains(s.String(), "\x1b[2m") || strings.Contains(s.String(), "\x1b[0m") {
		t.Errorf("colour without Color: %q", s.String())
	}
}

// TestTicks: the line is drawn again while nothing is written, so that
// its times move.
func TestTicks(t *testing.T) {
	s := &syncbuf.Buffer{}
	l := New(s, Options{Tick: 10 * time.Millisecond})
	defer l.Close()
	l.IterationStarted(loop.Request{Iteration: 1})
	// Drawn once as the iteration starts; the ticks draw it again.
	for guard := time.Now().Add(10 * time.Second); strings.Count(s.String(), "(run ") < 3; time.Sleep(time.Millisecond) {
		if time.Now().After(guard) {
			t.Fatalf("drawn %d times in 10 s at a 10 ms tick", strings.Count(s.String(), "(run "))
		}
	}
}

func TestLastLineIsBounded(t *testing.T) {
	l := New(&syncbuf.Buffer{}, Options{})
	defer l.Close()
	tap := l.Agent()
	for range 1000 {
		tap.Write([]byte(strings.Repeat("é", 100)))
	}
	if n := len(l.said.line()); n > maxLast {
		t.Errorf("kept %d bytes of the last line", n)
	}
	if !utf8.ValidString(l.said.line()) {
		t.Errorf("the last line kept is not valid UTF-8")
	}
}

// TestLastLineAcrossWrites: the agent's output arrives in pieces that
// cut lines anywhere; the line shown is the last one, whole.
func TestLastLineAcrossWrites(t *testing.T) {
	var s lastSaid
	for _, tc := range []struct{ write, want string }{
		{"first line\nsec", "sec"},
		{"ond line\n", "second line"},
		{"\n  \n", "second line"},
		{"third", "third"},
		{"\n", "third"},
		// Colours (opencode's, even into a pipe) and a progress bar.
		{"\x1b[1m\x1b[31mError:\x1b[0m no model", "Error: no model"},
		{"\n", "Error: no model"},
		{"\x1b]8;;https://x.example\x07link\x1b]8;;\x07 here\n", "link here"},
		{"10%\r50%\r", "50%"},
		{"\r90%", "90%"},
	} {
		s.write([]byte(tc.write))
		if got := s.line(); got != tc.want {
			t.Errorf("after %q: %q, want %q", tc.write, got, tc.want)
		}
	}
}

// blockedTerminal is a terminal whose writes wait until it is released,
// as a paused (Ctrl+S) terminal's do; entered is closed by the first.
type blockedTerminal struct {
	entered  chan struct{}
	once     sync.Once
	released chan struct{}
}

func (b *blockedTerminal) Write(p []byte) (int, error) {
	b.once.Do(func() { close(b.entered) })
	<-b.released
	return len(p), nil
}

// TestAPausedTerminalDoesNotHoldUpTheAgent: while a log line waits on a
// terminal that does not take it, the agent's output is still taken at
// once: the agent is never held up by the screen.
func TestAPausedTerminalDoesNotHoldUpTheAgent(t *testing.T) {
	term := &blockedTerminal{entered: make(chan struct{}), released: make(chan struct{})}
	l := New(term, Options{})
	l.Loop("build")
	go l.IterationStarted(loop.Request{Iteration: 1, MaxIterations: 3}) // blocks drawing
	go l.Writer(term).Write([]byte("a log line\n"))
	<-term.entered // a draw holds the line's lock, stuck on the terminal
	took := make(chan struct{})
	go func() {
		l.Agent().Write([]byte("the agent goes on\n"))
		close(took)
	}()
	select {
	case <-took:
	case <-time.After(10 * time.Second): // a guard against a hang
		t.Error("the agent's output waited for the paused terminal")
	}
	close(term.released)
	l.Close()
}

// TestAgentWordsCannotDriveTheTerminal: whatever escapes the agent's
// words and the procedure's name hold — OSC 52 (the clipboard) ended by
// BEL or by ST, a title left unended, a reset, the one-byte CSI — the
// status line drawn holds no control character but its own clear.
func TestAgentWordsCannotDriveTheTerminal(t *testing.T) {
	var at time.Duration
	l, s := testLine(400, &at)
	defer l.Close()
	l.Loop("evil\x1b[2J")
	l.IterationStarted(loop.Request{Iteration: 1, MaxIterations: 3})
	for _, words := range []string{
		"copy \x1b]52;c;cm0gLXJmIH4=\x07 done\n",
		"copy \x1b]52;c;cm0gLXJmIH4=\x1b\\ done\n",
		"title \x1b]0;pwned\n",
		"reset \x1bc and CSI \u009b2J\n",
		"partial \x1b]52;c;cm0g",
	} {
		l.Agent().Write([]byte(words))
		l.Loop("evil\x1b[2J") // draws again with the words
		drawn := lastDrawn(t, s.String())
		if strings.ContainsFunc(drawn, unicode.IsControl) {
			t.Errorf("after %q the status line holds a control character: %q", words, drawn)
		}
	}
}
