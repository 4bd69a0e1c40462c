package runpage

import (
	"fmt"
	"strings"
	"time"

	"rooda/host/loop"
	"rooda/host/units"
)

// The charts are drawn in a view box this wide; the page scales them to
// its width.
const (
	chartWidth = 800.0
	chartPad   = 10.0
	// minBar keeps an iteration of no measurable time visible and
	// clickable.
	minBar = 8.0
)

// timeline is the run's iterations side by side, each bar as long as
// the iteration took, a limit wait drawn before it.
type timeline struct {
	Width, Height float64
	Bars          []bar
	Total         string
	// AtOnce is set when some of the iterations are of loops that ran
	// at once, whose bars are laid one after another all the same.
	AtOnce bool
}

// bar is one iteration on the timeline.
type bar struct {
	N              int
	Outcome        string
	X, W           float64
	Wait           bool
	WaitX, WaitW   float64
	Title          string
	WaitTitle      string
	BarY, BarH     float64
	LabelX, LabelY float64
}

// drawTimeline lays the records out in proportion to their time; when
// none took measurable time, side by side alike.
func drawTimeline(records []iterationView) timeline {
	var total time.Duration
	for _, it := range records {
		total += it.Duration + it.Waited
	}
	scale := func(d time.Duration) float64 {
		if total == 0 {
			return (chartWidth - 2*chartPad) / float64(max(len(records), 1))
		}
		return (chartWidth - 2*chartPad) * d.Seconds() / total.Seconds()
	}
	t := timeline{Height: 60, Total: units.Duration(total)}
	x := chartPad
	for _, it := range records {
		b := bar{N: it.N, Outcome: it.Outcome, Title: barTitle(it), BarY: 10, BarH: 30}
		if it.Waited > 0 {
			b.Wait, b.WaitX, b.WaitW = true, x, max(scale(it.Waited), minBar)
			b.WaitTitle = fmt.Sprintf("Iteration %d waited %s for a limit or an outage", it.N, units.Duration(it.Waited))
			x += b.WaitW
		}
		b.X, b.W = x, max(scale(it.Duration), minBar)
		if total == 0 {
			b.W = max(scale(0)-2, minBar)
		}
		b.LabelX, b.LabelY = b.X+b.W/2, 54
		x += b.W + 1
		t.Bars = append(t.Bars, b)
		t.AtOnce = t.AtOnce || it.LoopName != ""
	}
	t.Width = max(chartWidth, x+chartPad)
	return t
}

// barTitle is what hovering an iteration's bar says: "Iteration 2:
// failure, cause rate_limit, 12.5s, waited 1m0s for a limit", its
// loop named when it ran in parallel() ("Iteration 2 (task-a): …").
func barTitle(it iterationView) string {
	name := fmt.Sprintf("Iteration %d", it.N)
	if it.LoopName != "" {
		name += " (" + it.LoopName + ")"
	}
	parts := []string{name + ": " + it.Outcome}
	if it.Meta.Cause != "" {
		parts = append(parts, "cause "+it.Meta.Cause)
	}
	if it.HasMeta {
		parts = append(parts, units.Duration(it.Duration))
	}
	if it.Waited > 0 {
		parts = append(parts, "waited "+units.Duration(it.Waited)+" for a limit")
	}
	return strings.Join(parts, ", ")
}

// spendChart is what the run spent so far after each iteration: its
// dollars when every iteration's were known, its tokens otherwise.
type spendChart struct {
	Empty         bool
	Width, Height float64
	What, Most    string
	Points        string
	Dots          []dot
	Bottom        float64
}

// dot is one iteration's point of the spend chart, with its hover.
type dot struct {
	X, Y  float64
	Title string
}

// drawSpend draws the spend after each record as a line from zero.
func drawSpend(records []iterationView) spendChart {
	var running loop.Spend
	totals := make([]loop.Spend, len(records))
	for i, it := range records {
		running = running.Add(it.Spend)
		totals[i] = running
	}
	c := spendChart{Width: chartWidth, Height: 140, Bottom: 120, What: "tokens"}
	if running.IsZero() {
		c.Empty = true
		return c
	}
	value := func(s loop.Spend) float64 { return float64(s.TotalTokens()) }
	c.Most = running.String()
	// Add keeps Costed only while every spend added had a cost.
	if running.Costed {
		c.What = "dollars"
		value = func(s loop.Spend) float64 { return s.CostUSD }
	}
	top := max(value(running), 1e-9)
	step := (chartWidth - 2*chartPad) / float64(len(records))
	points := []string{fmt.Sprintf("%.1f,%.1f", chartPad, c.Bottom)}
	for i, it := range records {
		d := dot{X: chartPad + step*float64(i+1), Y: c.Bottom - (c.Bottom-chartPad)*value(totals[i])/top}
		d.Title = fmt.Sprintf("After iteration %d: %s", it.N, orNothing(totals[i].String()))
		points = append(points, fmt.Sprintf("%.1f,%.1f", d.X, d.Y))
		c.Dots = append(c.Dots, d)
	}
	c.Points = strings.Join(points, " ")
	return c
}

func orNothing(s string) string {
	if s == "" {
		return "nothing reported"
	}
	return s
}
