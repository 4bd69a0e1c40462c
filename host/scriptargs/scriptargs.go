// Package scriptargs reads a script's typed arguments: the flags that
// follow -- on the command line (--n=5, --agent codex, --dry), each of
// the type of the default the script gives it.
package scriptargs

import (
	"fmt"
	"strconv"
	"strings"

	"rooda/host/suggest"
)

// Kind is the type of a flag's value, its default's.
type Kind int

const (
	String Kind = iota
	Int
	Float
	Bool
)

// Name is how messages name the kind: "an int".
func (k Kind) Name() string {
	return [...]string{"a str", "an int", "a float", "a bool"}[k]
}

// Flag is one argument a script takes.
type Flag struct {
	// Name is the script's name for it (dry_run); the command line may
	// write it --dry_run or --dry-run.
	Name string
	Kind Kind
	// Default is the default as the command line would write it ("3",
	// "claude"; "" for a str whose default is None).
	Default string
}

// Usage is how the command line gives the flag: --n=3, --dry.
func (f Flag) Usage() string {
	if f.Kind == Bool {
		return "--" + f.Name
	}
	return "--" + f.Name + "=" + f.Default
}

// Parse reads the flags among args, by the kinds of flags; arguments
// that are not flags (src/auth) are left to the script's args, and
// everything after a lone -- too. It returns each flag given, by name,
// as a string, an int64, a float64 or a bool; a flag not given is
// absent. A flag that is not one of flags, or whose value is not of its
// kind, is an error that names it.
func Parse(args []string, flags []Flag) (map[string]any, error) {
	byName := map[string]Flag{}
	for _, f := range flags {
		byName[f.Name] = f
	}
	got := map[string]any{}
	for i := 0; i < len(args); i++ {
		arg := args[i]
		if arg == "--" {
			break
		}
		if !isFlag(arg) {
			continue
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(arg, "-"), "=")
		f, ok := byName[strings.ReplaceAll(name, "-", "_")]
		if !ok {
			return nil, unknown(arg, name, flags)
		}
		if !hasValue && f.Kind != Bool {
			if i+1 >= len(args) {
				return nil, fmt.Errorf("the script's argument --%s needs a value, %s: --%s=%s", name, f.Kind.Name(), name, example(f))
			}
			i++
			value = args[i]
		}
		v, err := parse(f, value, hasValue)
		if err != nil {
			return nil, fmt.Errorf("the script's argument --%s: %w", name, err)
		}
		got[f.Name] = v
	}
	return got, nil
}

// isFlag says whether arg names a flag: -x or --x, not a negative number
// nor a lone dash.
func isFlag(arg string) bool {
	if !strings.HasPrefix(arg, "-") || arg == "-" {
		return false
	}
	_, err := strconv.ParseFloat(arg, 64)
	return err != nil
}

func parse(f Flag, value string, hasValue bool) (any, error) {
	switch f.Kind {
	case Int:
		n, err := strconv.ParseInt(value, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("want an int, got %q", value)
		}
		return n, nil
	case Float:
		x, err := strconv.ParseFloat(value, 64)
		if err != nil {
			return nil, fmt.Errorf("want a number, got %q", value)
		}
		return x, nil
	case Bool:
		if !hasValue {
			return true, nil
		}
		b, err := strconv.ParseBool(value)
		if err != nil {
			return nil, fmt.Errorf("want true or false, got %q", value)
		}
		return b, nil
	}
	return value, nil
}

func example(f Flag) string {
	if f.Default != "" {
		return f.Default
	}
	return map[Kind]string{String: "text", Int: "3", Float: "1.5"}[f.Kind]
}

// unknown is the error for a flag the script does not take: the one
// meant, and the ones it takes.
func unknown(arg, name string, flags []Flag) error {
	names := make([]string, len(flags))
	usages := make([]string, len(flags))
	for i, f := range flags {
		names[i], usages[i] = f.Name, f.Usage()
	}
	msg := fmt.Sprintf("the script takes no argument %s", arg)
	if near := suggest.Closest(strings.ReplaceAll(name, "-", "_"), names); near != "" {
		msg += fmt.Sprintf(" (did you mean --%s?)", near)
	}
	if len(flags) == 0 {
		return fmt.Errorf("%s: it takes no flags", msg)
	}
	return fmt.Errorf("%s; it takes %s", msg, strings.Join(usages, ", "))
}
