// Package units writes durations and amounts of money one way in every
// output of rooda: the log, the record and runs show, the run page, rooda
// info and config show, the help. A reader who meets "15m" in one place
// and "900" or "15m0s" in another must stop to check that they are the
// same; so must one who meets "$1.5", "$0.8000" and "$1.60".
package units

import (
	"math"
	"strconv"
	"strings"
	"time"
)

// Duration writes d as Go writes a duration, rounded to what a person
// reads and without a tail of zero units: "15m", "1h30m", "2m16s",
// "45.2s", "2.5s", "350ms", "0s". From a minute on it is rounded to the
// second, under a minute to a tenth of a second, under a second to the
// millisecond. What Duration writes, time.ParseDuration reads (the
// configuration's durations are read so): "15m" is a valid idle_timeout.
func Duration(d time.Duration) string {
	switch abs := max(d, -d); {
	case abs >= time.Minute:
		d = d.Round(time.Second)
	case abs >= time.Second:
		d = d.Round(100 * time.Millisecond)
	default:
		d = d.Round(time.Millisecond)
	}
	return withoutZeroTail(d.String())
}

// withoutZeroTail drops the zero seconds and minutes Go writes after a
// larger unit: "15m0s" is "15m", "1h0m0s" is "1h"; "1h0m5s" keeps its
// minutes, which the seconds need.
func withoutZeroTail(s string) string {
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// Dollars writes an amount of US dollars to the cent: "$1.50", "$0.80",
// "$12.00", "$0.00". An amount under a cent, which an iteration of a cheap
// model often costs, would read as nothing: it is written to two
// significant digits instead ("$0.0023", "$0.0002"). It writes what was
// spent; a limit the user gave is written as given (Limit).
func Dollars(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return "$" + strconv.FormatFloat(x, 'f', -1, 64)
	}
	decimals := 2
	if abs := math.Abs(x); abs > 0 && abs < 0.01 {
		// The first significant digit is the -floor(log10)th decimal;
		// one more keeps a second one.
		decimals = int(-math.Floor(math.Log10(abs))) + 1
	}
	s := strconv.FormatFloat(roundHalfAway(x, decimals), 'f', decimals, 64)
	if decimals > 2 {
		// "$0.00020" is "$0.0002": the zero adds no figure.
		s = strings.TrimRight(s, "0")
	}
	return signed("$", s)
}

// roundHalfAway rounds x to decimals places as a person rounds the
// number written, half away from zero: 1.005 is 1.01 and 0.015 is 0.02,
// though the floats nearest them are a hair under. The shortest decimal
// that reads back as x is shifted by decimals places as text, which is
// exact, and rounded there.
func roundHalfAway(x float64, decimals int) float64 {
	whole, fraction, _ := strings.Cut(strconv.FormatFloat(math.Abs(x), 'f', -1, 64), ".")
	fraction += strings.Repeat("0", max(decimals-len(fraction), 0))
	shifted, err := strconv.ParseFloat(whole+fraction[:decimals]+"."+fraction[decimals:], 64)
	if err != nil {
		return x
	}
	return math.Copysign(math.Round(shifted)/math.Pow(10, float64(decimals)), x)
}

// Amount writes an amount of dollars exactly, with the two decimals of
// cents at least, as the configuration holds a budget: "1.50", "0.015".
func Amount(x float64) string {
	whole, fraction, _ := strings.Cut(strconv.FormatFloat(x, 'f', -1, 64), ".")
	return whole + "." + fraction + strings.Repeat("0", max(2-len(fraction), 0))
}

// Limit writes a budget of dollars the user gave, exactly ("$1.005" is
// not the cent it would round to), as money is written: "$2.50".
func Limit(x float64) string {
	return signed("$", Amount(x))
}

// signed puts unit after the sign of the number s: "-$1.50".
func signed(unit, s string) string {
	if rest, ok := strings.CutPrefix(s, "-"); ok {
		return "-" + unit + rest
	}
	return unit + s
}
