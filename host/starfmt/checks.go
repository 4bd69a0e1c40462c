package starfmt

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"rooda/host/suggest"
)

// Checks are buildifier's warnings that apply to generic Starlark, the
// ones script lint knows, each on by default or not. The rest of
// buildifier's warnings are about Bazel (BUILD files, rules, providers,
// depsets, native rules, visibility) and name nothing a rooda script
// has.
var Checks = map[string]bool{
	"confusing-name":            true,
	"dict-concatenation":        true,
	"dict-method-named-arg":     true,
	"function-docstring":        true,
	"function-docstring-args":   true,
	"function-docstring-header": true,
	"list-append":               true,
	"load":                      true,
	"name-conventions":          true,
	"no-effect":                 true,
	"return-value":              true,
	"string-iteration":          true,
	"uninitialized":             true,
	"unreachable":               true,
	"unused-variable":           true,

	// rooda's script doc reads a docstring's Args: only; a library
	// says what a function returns in its first line.
	"function-docstring-return": false,
	// In rooda's Starlark, as in Python 3, / of two ints is a float:
	// buildifier warns of it because Bazel's Starlark refuses it.
	"integer-division": false,
	// A script is a program: what it does is the comment at its top; a
	// library module's docstring is worth asking for with
	// +module-docstring.
	"module-docstring": false,
	// rooda's dialect lets a script assign a global again
	// (r = iterate(…) after r = iterate(…)).
	"redefined-variable": false,
	// The order of a dict's items is the order a script means.
	"unsorted-dict-items": false,
}

// ParseChecks is the list of checks spec chooses, sorted: a list separated
// by commas that starts from default (the checks on by default), all or
// none, then adds +name and removes -name, in order. A spec that starts
// with +name or -name starts from default; one of bare names is exactly
// those checks.
func ParseChecks(spec string) ([]string, error) {
	chosen := map[string]bool{}
	// first: no item yet; bare: every item so far a name alone.
	first, bare := true, true
	for _, item := range strings.Split(spec, ",") {
		item = strings.TrimSpace(item)
		switch {
		case item == "":
			continue
		case item == "default" || item == "all" || item == "none":
			if !first {
				return nil, fmt.Errorf("%s must come first in %q", item, spec)
			}
			chosen, bare = set(item), false
		case item[0] == '+' || item[0] == '-':
			if first {
				chosen = set("default")
			}
			if err := known(item[1:]); err != nil {
				return nil, err
			}
			chosen[item[1:]], bare = item[0] == '+', false
		default:
			if !bare {
				return nil, fmt.Errorf("%s in %q: write +%s to add it, -%s to remove it", item, spec, item, item)
			}
			if err := known(item); err != nil {
				return nil, err
			}
			chosen[item] = true
		}
		first = false
	}
	var list []string
	for _, name := range slices.Sorted(maps.Keys(chosen)) {
		if chosen[name] {
			list = append(list, name)
		}
	}
	return list, nil
}

// set is the checks of default, all or none.
func set(name string) map[string]bool {
	chosen := map[string]bool{}
	for check, on := range Checks {
		chosen[check] = name == "all" || name == "default" && on
	}
	return chosen
}

// known is an error for a name that is not one of Checks.
func known(name string) error {
	if _, ok := Checks[name]; ok {
		return nil
	}
	msg := fmt.Sprintf("no check %q for Starlark scripts", name)
	if near := suggest.Closest(name, slices.Sorted(maps.Keys(Checks))); near != "" {
		msg += fmt.Sprintf("; did you mean %s?", near)
	}
	return fmt.Errorf("%s (rooda script lint --help lists them)", msg)
}

// CheckNames are the names of the Checks on by default (on), or of the
// others, sorted.
func CheckNames(on bool) []string {
	var names []string
	for _, name := range slices.Sorted(maps.Keys(Checks)) {
		if Checks[name] == on {
			names = append(names, name)
		}
	}
	return names
}
