package config

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"rooda/host/agent"
	"rooda/host/suggest"
)

// parser turns the text of a setting into its value, and back.
type parser[T any] struct {
	parse  func(string) (T, error)
	format func(T) string
}

func atLeast(low int) parser[int] {
	return parser[int]{
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

var boolean = parser[bool]{
	parse: func(s string) (bool, error) {
		b, err := strconv.ParseBool(strings.TrimSpace(s))
		if err != nil {
			return false, fmt.Errorf("must be true or false, got %q", s)
		}
		return b, nil
	},
	format: strconv.FormatBool,
}

func oneOf(values ...string) parser[string] {
	return parser[string]{
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

// text is any string, even empty: a display name or a description.
var text = parser[string]{
	parse:  func(s string) (string, error) { return s, nil },
	format: quote,
}

// name is a non-empty word, such as an alias name; command is an AI
// command line, whose program is checked before a run.
var (
	name    = nonEmpty("must not be empty")
	command = parser[string]{
		parse: func(s string) (string, error) {
			if _, err := agent.Split(s); err != nil {
				return "", fmt.Errorf("is not a valid command line: %v", err)
			}
			return s, nil
		},
		format: quote,
	}
)

func nonEmpty(complaint string) parser[string] {
	return parser[string]{
		parse: func(s string) (string, error) {
			if strings.TrimSpace(s) == "" {
				return "", errors.New(complaint)
			}
			return s, nil
		},
		format: quote,
	}
}

// timeout is a whole number of seconds ("300"), a Go duration ("5m",
// "90s"), or "none" for no timeout, the built-in default. A timeout is at
// least one second.
var timeout = parser[time.Duration]{
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

func formatTimeout(d time.Duration) string {
	switch {
	case d == 0:
		return "none"
	case d%time.Second == 0:
		return strconv.Itoa(int(d / time.Second))
	}
	return d.String()
}

// size is a number of bytes, with an optional unit: 10485760, 10MB, 512KiB.
// K, M and G are powers of 1024, as rooda's 10MB default means 10485760.
func size(low int) parser[int] {
	return parser[int]{
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
		format: strconv.Itoa,
	}
}

var units = []struct {
	suffix string
	factor int
}{
	{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30},
	{"KB", 1 << 10}, {"MB", 1 << 20}, {"GB", 1 << 30},
	{"K", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30}, {"B", 1},
}

func parseSize(s string) (int, error) {
	digits, factor := strings.TrimSpace(s), 1
	for _, u := range units {
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
