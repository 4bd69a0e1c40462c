package agentstream

import (
	"bytes"
	"fmt"
	"io"
	"sync"
	"time"
	"unicode/utf8"
)

// Bounds on what a Decoder keeps, whatever the agent prints.
const (
	// MaxLine is the longest line decoded; a longer one is dropped with a
	// note. It is large because a CLI puts a whole file it wrote or read
	// in one line of JSON.
	MaxLine = 4 << 20
	// MaxText is how much assistant text, the most recent, Summary keeps.
	MaxText = 256 << 10
	// maxResult bounds the final text, maxError an error message,
	// maxOutput the tail of the lines that were not JSON.
	maxResult = 64 << 10
	maxError  = 4 << 10
	maxOutput = 16 << 10
)

// A Decoder reads one run of an agent's output, as it arrives, in one
// Format: it renders the transcript to its stream and keeps a Summary.
// Its methods may be called from several goroutines.
type Decoder struct {
	mu       sync.Mutex
	format   Format
	lines    lineDecoder // nil for Text
	render   renderer
	observe  func(Event)
	line     []byte // the line being read, at most MaxLine bytes
	skipping int64  // > 0: the bytes of a too long line being dropped
	sum      Summary
	text     tail
	output   tail
}

// clock is the time a decoded line arrived at, for a reset a CLI names by
// the clock alone ("try again at 3:05 PM"); tests fix it.
var clock = time.Now

// New returns a Decoder of format that writes the readable transcript to
// stream (nil: none) as events arrive. In the Text format the transcript is
// the output itself.
func New(format Format, stream io.Writer) *Decoder {
	if stream == nil {
		stream = io.Discard
	}
	d := &Decoder{
		format: format,
		lines:  newLineDecoder(format),
		render: renderer{w: stream, raw: format == Text},
		text:   tail{limit: MaxText},
		output: tail{limit: maxOutput},
	}
	d.sum.Format = format
	return d
}

// Observe makes f receive every event as it is decoded, after it is
// rendered and counted. f runs with the Decoder locked: it must not call
// the Decoder's methods.
func (d *Decoder) Observe(f func(Event)) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.observe = f
}

// Write decodes p, which may hold any part of any number of lines. It
// never fails: what cannot be decoded is kept as output.
func (d *Decoder) Write(p []byte) (int, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.lines == nil {
		d.emit(Event{Kind: KindOutput, Text: string(p)})
		return len(p), nil
	}
	for rest := p; len(rest) > 0; {
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			d.add(rest)
			break
		}
		d.add(rest[:i])
		d.endLine()
		rest = rest[i+1:]
	}
	return len(p), nil
}

// Close decodes a last line that has no newline and writes the totals to
// the stream. It returns the first error of writing to the stream: the
// transcript is incomplete, the Summary is not.
func (d *Decoder) Close() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.line) > 0 || d.skipping > 0 {
		d.endLine()
	}
	d.render.totals(d.sum)
	if !d.render.raw {
		d.render.endLine()
	}
	return d.render.err
}

// Summary returns what was decoded so far.
func (d *Decoder) Summary() Summary {
	d.mu.Lock()
	defer d.mu.Unlock()
	s := d.sum
	s.Text = d.text.String()
	s.TextTruncated = d.text.truncated()
	s.Output = d.output.String()
	return s
}

// add appends part of a line, or counts it when the line is too long.
func (d *Decoder) add(b []byte) {
	if need := len(d.line) + len(b); d.skipping == 0 && need <= MaxLine {
		if need > cap(d.line) {
			// Grown by hand: append's doubling would pass MaxLine.
			grown := make([]byte, len(d.line), min(max(2*cap(d.line), need), MaxLine))
			d.line = append(grown[:0], d.line...)
		}
		d.line = append(d.line, b...)
		return
	}
	d.skipping += int64(len(d.line) + len(b))
	d.line = d.line[:0]
}

// endLine decodes the line read, or notes that it was dropped.
func (d *Decoder) endLine() {
	if d.skipping > 0 {
		d.sum.DroppedLines++
		d.emit(Event{Kind: KindNote, Text: fmt.Sprintf("dropped a line of %d bytes, longer than %d", d.skipping, MaxLine)})
		d.skipping = 0
		return
	}
	line := bytes.TrimSuffix(d.line, []byte("\r"))
	if len(bytes.TrimSpace(line)) > 0 && !d.lines.decode(line, d.emit) {
		d.emit(Event{Kind: KindOutput, Text: string(line) + "\n"})
	}
	// A buffer grown by one huge line is not kept for the next ones.
	if cap(d.line) > 64<<10 {
		d.line = nil
	}
	d.line = d.line[:0]
}

// emit renders e, counts it in the summary and hands it to the observer.
func (d *Decoder) emit(e Event) {
	d.render.event(e)
	d.count(e)
	if d.observe != nil {
		d.observe(e)
	}
}

// count adds e to the summary.
func (d *Decoder) count(e Event) {
	s := &d.sum
	s.Events++
	switch e.Kind {
	case KindOutput:
		if d.lines == nil {
			d.text.write(e.Text, true)
			s.TextBytes += int64(len(e.Text))
		} else {
			d.output.write(e.Text, true)
		}
	case KindAssistant:
		d.text.write(e.Text, e.Continues)
		s.TextBytes += int64(len(e.Text))
	case KindToolCall:
		s.ToolCalls++
	case KindToolResult:
		if refusal(e.Text) != "" {
			s.Refused++
		}
	case KindRetry:
		s.Retries++
		s.LastRetry = e.Retry
	case KindUsage:
		s.Usage = s.Usage.Add(e.Usage)
		if e.HasCost {
			s.CostUSD += e.Cost
			s.CostReported = true
		}
	case KindResult:
		s.Result = clip(e.Text, maxResult)
	case KindError:
		s.Err = clip(e.Text, maxError)
		// A vaguer error that follows does not hide what caused it: a
		// usage limit, then "the request failed", is still a usage limit.
		if e.Cause != CauseOther || s.Cause == "" {
			s.Cause = e.Cause
		}
		if !e.ResetAt.IsZero() {
			s.ResetAt, s.ResetEarliest = e.ResetAt, e.ResetEarliest
		}
	case KindModel:
		s.Model = e.Text
	case KindSession:
		if s.Session == "" {
			s.Session = e.Text
		}
	}
}

// Summary is what a Decoder learned from one run of an agent.
type Summary struct {
	Format Format
	// Text is the assistant text, the most recent MaxText bytes of it,
	// messages separated by newlines: where the signals are looked for.
	// In the Text format it is the output itself.
	Text          string
	TextBytes     int64 // all the assistant text seen, Text's and before
	TextTruncated bool  // Text lost its beginning to the bound
	Result        string
	Model         string
	// Session is the CLI's id of its session, the first it named.
	Session      string
	Usage        Usage
	CostUSD      float64
	CostReported bool // the CLI reported a cost (CostUSD may still be 0)
	ToolCalls    int
	// Refused counts the tool results that say the system refused a
	// file or a process ("Permission denied"): what a sandbox refused.
	Refused   int
	Retries   int
	LastRetry Retry
	// Err is the last error the CLI reported, Cause its cause (the most
	// telling of the errors seen) and ResetAt when a limit resets, if the
	// CLI said. A run ended while its CLI was retrying has no Err but a
	// LastRetry, whose Cause is the best guess of what went wrong.
	Err     string
	Cause   Cause
	ResetAt time.Time
	// ResetEarliest is, when the CLI named the reset rounded, the
	// earliest it may be (Event.ResetEarliest); zero when ResetAt is exact.
	ResetEarliest time.Time
	// Output is the tail of the lines that were not the CLI's JSON: its
	// warnings and errors on stderr, for a failed iteration's warning.
	Output       string
	Events       int
	DroppedLines int
}

// FailureCause is the cause to report for a failed run: the error's, or
// when there is none, the last retry's; "" when the CLI said nothing.
func (s Summary) FailureCause() Cause {
	if s.Cause != "" {
		return s.Cause
	}
	return s.LastRetry.Cause
}

// tail keeps the last limit bytes of a text written in pieces, separating
// pieces that do not continue the previous one with a newline.
type tail struct {
	limit   int
	buf     []byte
	dropped int64
}

// write appends s, after a newline unless continues or the text already
// ends a line.
func (t *tail) write(s string, continues bool) {
	if !continues && len(t.buf) > 0 && t.buf[len(t.buf)-1] != '\n' {
		t.buf = append(t.buf, '\n')
	}
	if len(s) > t.limit {
		t.dropped += int64(len(t.buf) + len(s) - t.limit)
		t.buf = append(t.buf[:0], s[len(s)-t.limit:]...)
		return
	}
	t.buf = append(t.buf, s...)
	// Trim only when twice the limit: copying the kept half each time a
	// piece arrives would cost more than the memory saved.
	if len(t.buf) > 2*t.limit {
		cut := len(t.buf) - t.limit
		t.dropped += int64(cut)
		t.buf = append(t.buf[:0], t.buf[cut:]...)
	}
}

// truncated reports whether the text lost its beginning.
func (t *tail) truncated() bool { return t.dropped > 0 || len(t.buf) > t.limit }

// String returns the kept text, at most limit bytes.
func (t *tail) String() string {
	if len(t.buf) > t.limit {
		return string(t.buf[len(t.buf)-t.limit:])
	}
	return string(t.buf)
}

// clip shortens s to at most its first n bytes, not cutting a character.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
