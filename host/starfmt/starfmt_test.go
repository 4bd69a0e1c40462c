package starfmt

import (
	"slices"
	"strings"
	"testing"
)

func TestParseChecks(t *testing.T) {
	for _, tc := range []struct {
		spec     string
		has, not []string
		exactly  []string
	}{
		{spec: "default", has: []string{"unused-variable", "no-effect", "function-docstring"}, not: []string{"module-docstring", "redefined-variable", "integer-division"}},
		{spec: "all", has: []string{"unused-variable", "module-docstring", "redefined-variable", "unsorted-dict-items"}},
		{spec: "none", exactly: nil},
		{spec: "-unused-variable", has: []string{"no-effect"}, not: []string{"unused-variable", "module-docstring"}},
		{spec: "+module-docstring", has: []string{"unused-variable", "module-docstring"}},
		{spec: " ,+module-docstring", has: []string{"unused-variable", "module-docstring"}},
		{spec: "default,-no-effect,+no-effect", has: []string{"no-effect"}},
		{spec: "all,-module-docstring", has: []string{"redefined-variable"}, not: []string{"module-docstring"}},
		{spec: "none,+load,+no-effect", exactly: []string{"load", "no-effect"}},
		{spec: "no-effect, load", exactly: []string{"load", "no-effect"}},
		{spec: "load,+uninitialized,-load", exactly: []string{"uninitialized"}},
	} {
		got, err := ParseChecks(tc.spec)
		if err != nil {
			t.Errorf("%q: %v", tc.spec, err)
			continue
		}
		if tc.has == nil && tc.not == nil && !slices.Equal(got, tc.exactly) {
			t.Errorf("%q: got %v, want %v", tc.spec, got, tc.exactly)
		}
		for _, name := range tc.has {
			if !slices.Contains(got, name) {
				t.Errorf("%q: %s missing from %v", tc.spec, name, got)
			}
		}
		for _, name := range tc.not {
			if slices.Contains(got, name) {
				t.Errorf("%q: %s in %v", tc.spec, name, got)
			}
		}
		if !slices.IsSorted(got) {
			t.Errorf("%q: not sorted: %v", tc.spec, got)
		}
	}
}

func TestParseChecksRefuses(t *testing.T) {
	for spec, want := range map[string]string{
		"-unused-variables":   `no check "unused-variables" for Starlark scripts; did you mean unused-variable?`,
		"+native-cc-library":  `no check "native-cc-library" for Starlark scripts`,
		"-load,all":           `all must come first in "-load,all"`,
		"+load,no-effect":     `no-effect in "+load,no-effect": write +no-effect to add it, -no-effect to remove it`,
		"default,bogus-check": `bogus-check in "default,bogus-check": write +bogus-check`,
	} {
		_, err := ParseChecks(spec)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: got %v, want %q", spec, err, want)
		}
	}
}
