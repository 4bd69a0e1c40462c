package builtins

import (
	"fmt"

	"go.starlark.net/starlark"

	"rooda/host/config"
)

// keywordKind converts the value a script gives a setting's keyword to
// the text the setting's parser reads, by the keyword's Starlark type: a
// file, the environment, a flag and iterate() are checked by one parser.
type keywordKind struct {
	// optional is the name's suffix for UnpackArgs: "??" lets None mean
	// not given; a bool takes "?", as None is no bool.
	optional string
	// target is what UnpackArgs fills.
	target func() any
	// text is the value as text; given is false when the script left the
	// keyword out.
	text func(k config.Keyword, target any) (text string, given bool, err error)
}

var keywordKinds = map[string]keywordKind{
	"int":               {"??", newValue, intText},
	"int | str":         {"??", newValue, intOrStringText},
	"int | float":       {"??", newValue, numberText},
	"int | float | str": {"??", func() any { return new(settingDuration) }, durationText},
	"bool":              {"?", func() any { return new(bool) }, switchText},
	"str":               {"??", newValue, stringText},
}

func newValue() any { return new(starlark.Value) }

func intText(k config.Keyword, target any) (string, bool, error) {
	v := *target.(*starlark.Value)
	if v == nil {
		return "", false, nil
	}
	var n int
	if err := starlark.AsInt(v, &n); err != nil {
		return "", false, fmt.Errorf("%s must be an int, got %s %s", k.Name, v.Type(), shortRepr(v))
	}
	return fmt.Sprint(n), true, nil
}

// intOrStringText takes a number as it is, and a string ("10MB") for the
// parser to read.
func intOrStringText(_ config.Keyword, target any) (string, bool, error) {
	v := *target.(*starlark.Value)
	if v == nil {
		return "", false, nil
	}
	if s, ok := starlark.AsString(v); ok {
		return s, true, nil
	}
	return v.String(), true, nil
}

// stringText takes a string for the parser to read.
func stringText(k config.Keyword, target any) (string, bool, error) {
	v := *target.(*starlark.Value)
	if v == nil {
		return "", false, nil
	}
	s, ok := starlark.AsString(v)
	if !ok {
		return "", false, fmt.Errorf("%s must be a str, got %s %s", k.Name, v.Type(), shortRepr(v))
	}
	return s, true, nil
}

// numberText takes an int or a float as it is written.
func numberText(k config.Keyword, target any) (string, bool, error) {
	v := *target.(*starlark.Value)
	switch v.(type) {
	case nil:
		return "", false, nil
	case starlark.Int, starlark.Float:
		return v.String(), true, nil
	}
	return "", false, fmt.Errorf("%s must be a number, got %s %s", k.Name, v.Type(), shortRepr(v))
}

func durationText(_ config.Keyword, target any) (string, bool, error) {
	d := target.(*settingDuration)
	if d.none {
		return "none", true, nil
	}
	return d.d.String(), d.given, nil
}

// settingDuration is a setting's duration: 30, 1.5, "30s", or "none",
// which turns the setting off, as in the configuration.
type settingDuration struct {
	duration
	none bool
}

func (d *settingDuration) Unpack(v starlark.Value) error {
	if s, ok := v.(starlark.String); ok && s == "none" {
		d.none, d.given = true, true
		return nil
	}
	return d.duration.Unpack(v)
}

// switchText: True sets what the keyword's switch sets; False, nothing.
func switchText(k config.Keyword, target any) (string, bool, error) {
	if !*target.(*bool) {
		return "", false, nil
	}
	if k.Sets == "" {
		return "true", true, nil
	}
	return k.Sets, true, nil
}

// keywordArg is one setting's keyword in a call of iterate().
type keywordArg struct {
	keyword config.Keyword
	kind    keywordKind
	target  any
}

func newKeywordArg(k config.Keyword) (*keywordArg, error) {
	kind, ok := keywordKinds[k.Type]
	if !ok {
		return nil, fmt.Errorf("iterate: the setting %s's keyword %s has the type %q, which rooda cannot convert", k.Key, k.Name, k.Type)
	}
	return &keywordArg{k, kind, kind.target()}, nil
}

// assignments are the settings the script gave, for the host to set in
// the order of iterate()'s parameters.
func assignments(args []*keywordArg) ([]config.Assignment, error) {
	var out []config.Assignment
	for _, a := range args {
		text, given, err := a.kind.text(a.keyword, a.target)
		if err != nil {
			return nil, err
		}
		if given {
			out = append(out, config.Assignment{Key: a.keyword.Key, Text: text, By: a.said()})
		}
	}
	return out, nil
}

// said is the keyword as messages name it: unlimited=True for a switch.
func (a *keywordArg) said() string {
	if a.keyword.Type == "bool" {
		return a.keyword.Name + "=True"
	}
	return a.keyword.Name
}
