package config

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"rooda/host/process"
	"rooda/host/suggest"
	"rooda/host/units"
)

// Parser turns the text of a setting into its value, and back. A file,
// the environment, a flag and iterate() all give text, so that one parser
// checks a setting however it is given.
type Parser[T any] struct {
	parse func(string) (T, error)
	// format writes the value as rooda-config.yml would.
	format func(T) string
	// show writes the value as rooda info and --dry-run show it; nil
	// means as fmt.Sprint does.
	show func(T) string
	// accepts says in words what the parser takes, for docs/settings.md.
	accepts string
	// sep, for a list, joins the items of a YAML sequence into the text
	// parse reads: "" for a single value.
	sep string
}

// Ports reads TCP ports separated by commas: "443,8080".
var Ports = Parser[[]int]{
	accepts: "TCP ports separated by ',' (443,8080), or a YAML list",
	sep:     ",",
	parse: func(s string) ([]int, error) {
		var ports []int
		for _, f := range strings.Split(s, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || n < 1 || n > 65535 {
				return nil, fmt.Errorf("must be TCP ports (1-65535) separated by ',', got %q", s)
			}
			ports = append(ports, n)
		}
		return ports, nil
	},
	format: func(ports []int) string {
		var s []string
		for _, p := range ports {
			s = append(s, strconv.Itoa(p))
		}
		return strings.Join(s, ",")
	},
}

// AtLeast reads an integer of at least low.
func AtLeast(low int) Parser[int] {
	return Parser[int]{
		accepts: fmt.Sprintf("an integer >= %d", low),
		parse: func(s string) (int, error) {
			n, err := strconv.Atoi(strings.TrimSpace(s))
			if err != nil {
				return 0, fmt.Errorf("must be an integer, got %q", s)
			}
			if n < low {
				return 0, fmt.Errorf("must be >= %d, got %d", low, n)
			}
			return n, nil
		},
		format: strconv.Itoa,
	}
}

// Dollars reads an amount of US dollars greater than 0: 5, 2.50.
var Dollars = Parser[float64]{
	accepts: "an amount of dollars > 0 (5, 2.50)",
	parse: func(s string) (float64, error) {
		x, err := strconv.ParseFloat(strings.TrimPrefix(strings.TrimSpace(s), "$"), 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
			return 0, fmt.Errorf("must be an amount of dollars (2.50), got %q", s)
		}
		if x <= 0 {
			return 0, fmt.Errorf("must be > 0, got %s", strings.TrimSpace(s))
		}
		return x, nil
	},
	// As rooda-config.yml holds it, exact (a budget of 0.015 is not
	// 0.02), and shown so.
	format: units.Amount,
	show:   units.Limit,
}

// Boolean reads true or false.
var Boolean = Parser[bool]{
	accepts: "true or false",
	parse: func(s string) (bool, error) {
		b, err := strconv.ParseBool(strings.TrimSpace(s))
		if err != nil {
			return false, fmt.Errorf("must be true or false, got %q", s)
		}
		return b, nil
	},
	format: strconv.FormatBool,
}

// OneOf reads one of values.
func OneOf(values ...string) Parser[string] {
	return Parser[string]{
		accepts: "one of " + strings.Join(values, ", "),
		parse: func(s string) (string, error) {
			if slices.Contains(values, s) {
				return s, nil
			}
			msg := fmt.Sprintf("must be one of %s, got %q", strings.Join(values, ", "), s)
			if near := suggest.Closest(s, values); near != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", near)
			}
			return "", fmt.Errorf("%s", msg)
		},
		format: quote,
	}
}

// Text is any string, even empty: a display name or a description.
var Text = Parser[string]{
	accepts: "any text",
	parse:   func(s string) (string, error) { return s, nil },
	format:  quote,
}

// PathList is paths separated by ':', as PATH is, or a YAML list; a
// path may name a variable, ${VAR:-default} too (SplitList).
var PathList = Parser[string]{
	accepts: "paths separated by ':', or a YAML list",
	parse:   func(s string) (string, error) { return s, nil },
	format:  quote,
	sep:     ":",
}

// Name is a non-empty word, such as an alias name; Names one or more,
// separated by ',' or as a YAML list (AliasNames splits them); Command
// is an AI command line, whose program is checked before a run.
var (
	Name  = nonEmpty("must not be empty")
	Names = Parser[string]{
		accepts: "a name, or names separated by ',' (agents taking turns), or a YAML list",
		parse: func(s string) (string, error) {
			for _, name := range AliasNames(s) {
				if name == "" {
					return "", fmt.Errorf("must be names separated by ',', got %q", s)
				}
			}
			return s, nil
		},
		format: quote,
		sep:    ",",
	}
	Command = Parser[string]{
		accepts: "a command line",
		parse: func(s string) (string, error) {
			if _, err := process.Split(s); err != nil {
				return "", fmt.Errorf("is not a valid command line: %w", err)
			}
			return s, nil
		},
		format: quote,
	}
)

// AliasNames are the names of an ai_cmd_alias: one, or the agents of a
// rotation.
func AliasNames(s string) []string {
	names := strings.Split(s, ",")
	for i := range names {
		names[i] = strings.TrimSpace(names[i])
	}
	return names
}

func nonEmpty(complaint string) Parser[string] {
	return Parser[string]{
		accepts: "a name",
		parse: func(s string) (string, error) {
			if strings.TrimSpace(s) == "" {
				return "", errors.New(complaint)
			}
			return s, nil
		},
		format: quote,
	}
}

// Timeout is a whole number of seconds ("300"), a Go duration ("5m",
// "90s"), or "none" for no timeout, the built-in default. A timeout is at
// least one second.
var Timeout = Parser[time.Duration]{
	accepts: "seconds (300), a duration (5m, 90s) or none",
	show:    formatTimeout,
	parse: func(s string) (time.Duration, error) {
		s = strings.TrimSpace(s)
		if s == "none" {
			return 0, nil
		}
		d, err := time.ParseDuration(s)
		if n, nerr := strconv.Atoi(s); nerr == nil {
			d, err = time.Duration(n)*time.Second, nil
		}
		if err != nil {
			return 0, fmt.Errorf("must be seconds (300), a duration (5m, 90s) or none, got %q", s)
		}
		if d < time.Second {
			return 0, fmt.Errorf("must be >= 1 second, got %s", s)
		}
		return d, nil
	},
	format: formatTimeout,
}

// formatTimeout writes a timeout as rooda-config.yml holds it, and as
// every output writes a duration ("15m", units.Duration; "none"): exact,
// for the file must load back to the same value, so a fraction of a
// second that units.Duration would round is written as Go writes it.
func formatTimeout(d time.Duration) string {
	if d == 0 {
		return "none"
	}
	if s := units.Duration(d); readsBack(s, d) {
		return s
	}
	return d.String()
}

func readsBack(s string, d time.Duration) bool {
	back, err := time.ParseDuration(s)
	return err == nil && back == d
}

// Size is a number of bytes, with an optional unit: 10485760, 10MB, 512KiB.
// K, M and G are powers of 1024, as rooda's 10MB default means 10485760.
func Size(low int) Parser[int] {
	return Parser[int]{
		accepts: fmt.Sprintf("a size in bytes (10485760, 10MB, 512KiB) >= %s", FormatSize(low)),
		show:    FormatSize,
		parse: func(s string) (int, error) {
			n, err := parseSize(s)
			if err != nil {
				return 0, err
			}
			if n < low {
				return 0, fmt.Errorf("must be >= %d bytes, got %s", low, strings.TrimSpace(s))
			}
			return n, nil
		},
		format: sizeInFile,
	}
}

// sizeInFile writes a size as rooda-config.yml holds it, as every output
// writes one ("10MB", FormatSize), or in bytes where no unit holds it
// whole: the file must load back to the same value.
func sizeInFile(n int) string {
	if s, ok := inUnit(n); ok {
		return s
	}
	return strconv.Itoa(n)
}

var sizeUnits = []struct {
	suffix string
	factor int
}{
	{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30},
	{"KB", 1 << 10}, {"MB", 1 << 20}, {"GB", 1 << 30},
	{"K", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30}, {"B", 1},
}

func parseSize(s string) (int, error) {
	digits, factor := strings.TrimSpace(s), 1
	for _, u := range sizeUnits {
		if rest, ok := strings.CutSuffix(digits, u.suffix); ok {
			digits, factor = strings.TrimSpace(rest), u.factor
			break
		}
	}
	n, err := strconv.Atoi(digits)
	if err != nil || n < 0 || n > (1<<40)/factor {
		return 0, fmt.Errorf("must be a size in bytes (10485760, 10MB, 512KiB), got %q", s)
	}
	return n * factor, nil
}

// quoteFlow is quote for a value inside a flow mapping ({name: …, run:
// …}), where a plain scalar holding a flow indicator or a colon, or
// beginning with an indicator, ends the value early or is refused
// (FuzzDecode found "run: :0").
func quoteFlow(s string) string {
	q := quote(s)
	if strings.HasPrefix(q, `"`) || strings.HasPrefix(q, "'") {
		return q
	}
	if strings.ContainsAny(s, ":,[]{}#") || strings.IndexAny(s, "-?!&*|>%@`") == 0 {
		return strconv.Quote(s)
	}
	return q
}

// quote writes a string as a YAML scalar, quoted only when it must be.
func quote(s string) string {
	if strings.ContainsAny(s, "\n\r\t") {
		return strconv.Quote(s)
	}
	out, err := yaml.Marshal(s)
	if err != nil {
		return strconv.Quote(s)
	}
	return strings.TrimSuffix(string(out), "\n")
}

// SplitList splits a list setting's text at each sep that is not inside
// a ${…}, so that a path's ${VAR:-default} stays whole.
func SplitList(list, sep string) []string {
	var items []string
	depth, start := 0, 0
	for i := 0; i < len(list); i++ {
		switch {
		case strings.HasPrefix(list[i:], "${"):
			depth++
			i++
		case list[i] == '}' && depth > 0:
			depth--
		case depth == 0 && strings.HasPrefix(list[i:], sep):
			items = append(items, list[start:i])
			start = i + len(sep)
			i = start - 1
		}
	}
	return append(items, list[start:])
}
