package units

import (
	"testing"
	"time"
)

func TestDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{
		0:                      "0s",
		400 * time.Microsecond: "0s",
		350 * time.Millisecond: "350ms",
		999*time.Millisecond + 600*time.Microsecond: "1s",
		2500 * time.Millisecond:                     "2.5s",
		45*time.Second + 240*time.Millisecond:       "45.2s",
		45 * time.Second:                            "45s",
		time.Minute:                                 "1m",
		2*time.Minute + 16400*time.Millisecond:      "2m16s",
		15 * time.Minute:                            "15m",
		90 * time.Minute:                            "1h30m",
		6 * time.Hour:                               "6h",
		time.Hour + 5*time.Second:                   "1h0m5s",
		59*time.Minute + 59700*time.Millisecond:     "1h",
	} {
		if got := Duration(d); got != want {
			t.Errorf("Duration(%v) = %q, want %q", d, got, want)
		}
	}
}

// TestDurationReadsBack: what Duration writes of a setting's value (whole
// seconds, as the configuration's durations are) time.ParseDuration
// reads back as the same value, so that config show's output loads.
func TestDurationReadsBack(t *testing.T) {
	for _, d := range []time.Duration{time.Second, 90 * time.Second, 15 * time.Minute, 10 * time.Minute, 6 * time.Hour, 26*time.Hour + 3*time.Second, 2500 * time.Millisecond} {
		back, err := time.ParseDuration(Duration(d))
		if err != nil || back != d {
			t.Errorf("Duration(%v) = %q reads back as %v, %v", d, Duration(d), back, err)
		}
	}
}

func TestDollars(t *testing.T) {
	for x, want := range map[float64]string{
		0:        "$0.00",
		1.5:      "$1.50",
		0.8:      "$0.80",
		1.6:      "$1.60",
		12:       "$12.00",
		0.0123:   "$0.01",
		0.015:    "$0.02",
		0.01:     "$0.01",
		0.0023:   "$0.0023",
		0.0002:   "$0.0002",
		0.000234: "$0.00023",
		0.005:    "$0.005",
		1234.567: "$1234.57",
		-0.5:     "-$0.50",
		// Half away from zero, as the number is written: the floats
		// nearest these are a hair under them.
		1.005:    "$1.01",
		0.285:    "$0.29",
		0.145:    "$0.15",
		-1.005:   "-$1.01",
		0.000285: "$0.00029",
	} {
		if got := Dollars(x); got != want {
			t.Errorf("Dollars(%v) = %q, want %q", x, got, want)
		}
	}
}

// TestLimit: a budget is written as given, to the cents at least, never
// rounded to them: what the user set is what rooda says it holds to.
func TestLimit(t *testing.T) {
	for x, want := range map[float64]string{1.005: "$1.005", 0.015: "$0.015", 2.5: "$2.50", 5: "$5.00", 0.01: "$0.01"} {
		if got := Limit(x); got != want {
			t.Errorf("Limit(%v) = %q, want %q", x, got, want)
		}
	}
}
