package builtins

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"
	"go.starlark.net/syntax"

	"rooda/host"
	"rooda/host/session"
	"rooda/host/suggest"
)

// TestRegistry lists what `rooda script test` adds for *_test.star files.
func TestRegistry() []Builtin { return []Builtin{fakeAgentBuiltin, skipBuiltin, advanceBuiltin} }

// AssertFunctions are the members of the assert module of script tests.
func AssertFunctions() []Builtin { return assertFunctions }

// TestPredeclared is what a *_test.star file sees: everything a script
// sees, the assert module, fake_agent(), skip() and advance().
func TestPredeclared(args []string) starlark.StringDict {
	return WithTestNames(Predeclared(args, false))
}

// WithTestNames adds to d the names of script tests, the assert module,
// fake_agent() and skip(), for a REPL to try tests out in; it returns d.
func WithTestNames(d starlark.StringDict) starlark.StringDict {
	for _, b := range TestRegistry() {
		d[b.Name] = starlark.NewBuiltin(b.Name, safe(b.Name, b.fn))
	}
	members := starlark.StringDict{}
	for _, b := range assertFunctions {
		members[b.Name] = starlark.NewBuiltin("assert."+b.Name, safe("assert."+b.Name, b.fn))
	}
	d["assert"] = assertModule{&starlarkstruct.Module{Name: "assert", Members: members}}
	return d
}

// assertModule is the assert module, which answers a member it lacks
// with the one meant: assert.equal is assert.eq.
type assertModule struct{ *starlarkstruct.Module }

func (m assertModule) Attr(name string) (starlark.Value, error) {
	if v, err := m.Module.Attr(name); v != nil || err != nil {
		return v, err
	}
	msg := fmt.Sprintf("assert has no member %s; it has %s", name, strings.Join(m.AttrNames(), ", "))
	if meant := assertSynonyms[name]; meant != "" {
		return nil, fmt.Errorf("%s (did you mean assert.%s?)", msg, meant)
	}
	if meant := suggest.Closest(name, m.AttrNames()); meant != "" {
		return nil, fmt.Errorf("%s (did you mean assert.%s?)", msg, meant)
	}
	return nil, errors.New(msg)
}

// assertSynonyms are the names other test libraries give the assertions,
// which a typo's distance would not find: equal is not a typo of eq.
var assertSynonyms = map[string]string{
	"equal": "eq", "equals": "eq", "assert_equal": "eq", "assert_eq": "eq", "eq_": "eq", "ne": "eq",
	"is_true": "true", "ok": "true", "assert_true": "true", "truthy": "true",
	"in": "contains", "has": "contains", "includes": "contains", "assert_in": "contains",
	"raises": "fails", "throws": "fails", "error": "fails", "assert_raises": "fails",
}

var assertFunctions = []Builtin{
	{Name: "eq", Params: []Param{{"got", "any", "", "the value the test computed"}, {"want", "any", "", "the value it should be"}, {"msg", "str", "None", "said first when they differ"}},
		Returns: "None", Doc: "Fails the test, showing both values, unless got == want; of two long texts it shows where they part.", fn: assertEq},
	{Name: "true", Params: []Param{{"cond", "any", "", "a value that must be true"}, {"msg", "str", "None", "said when it is not"}},
		Returns: "None", Doc: "Fails the test unless cond is true.", fn: assertTrue},
	{Name: "contains", Params: []Param{{"container", "str | list | dict", "", "where to look"}, {"item", "any", "", "what must be in it"}},
		Returns: "None", Doc: "Fails the test unless item is in container (a substring, for strings); for a long text it shows the part where item came closest, its longest start found.", fn: assertContains},
	{Name: "fails", Params: []Param{{"fn", "function", "", "a function of no arguments"}, {"pattern", "str", "", "a regular expression its error must match"}},
		Returns: "None", Doc: "Fails the test unless fn() fails with an error that matches pattern.", fn: assertFails},
}

func assertEq(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var got, want starlark.Value
	var msg string
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "got", &got, "want", &want, "msg??", &msg); err != nil {
		return nil, err
	}
	if eq, err := starlark.Equal(got, want); err != nil || !eq {
		g, gok := starlark.AsString(got)
		w, wok := starlark.AsString(want)
		if gok && wok && max(len(g), len(w)) > nearbyWidth {
			return nil, fmt.Errorf("%sthe texts differ (got %d bytes, want %d); %s", prefix(msg), len(g), len(w), firstDifference(g, w))
		}
		return nil, fmt.Errorf("%sgot %s, want %s", prefix(msg), got.String(), want.String())
	}
	return starlark.None, nil
}

func assertTrue(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var cond starlark.Value
	var msg string
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "cond", &cond, "msg??", &msg); err != nil {
		return nil, err
	}
	if !cond.Truth() {
		return nil, fmt.Errorf("%sgot %s, want a true value", prefix(msg), cond.String())
	}
	return starlark.None, nil
}

func assertContains(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var container, item starlark.Value
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "container", &container, "item", &item); err != nil {
		return nil, err
	}
	in, err := starlark.Binary(syntax.IN, item, container)
	if err != nil {
		return nil, err
	}
	if in.Truth() {
		return starlark.None, nil
	}
	text, isText := starlark.AsString(container)
	needle, ok := starlark.AsString(item)
	switch {
	case isText && ok && len(text) > nearbyWidth:
		return nil, fmt.Errorf("%s not in the text (%d bytes); %s", item.String(), len(text), nearestPart(text, needle))
	case isText:
		return nil, fmt.Errorf("%s not in %s", item.String(), container.String())
	}
	return nil, fmt.Errorf("%s not in %s", item.String(), shorten(container.String()))
}

func assertFails(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var fn starlark.Callable
	var pattern string
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "fn", &fn, "pattern", &pattern); err != nil {
		return nil, err
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil, fmt.Errorf("pattern %q: %w", pattern, err)
	}
	_, callErr := starlark.Call(thread, fn, nil, nil)
	var skip *host.Skip
	switch {
	case errors.As(callErr, &skip) || host.Context(thread).Err() != nil:
		// A skip or an interrupt is not the failure being tested for.
		return nil, callErr
	case callErr == nil:
		return nil, fmt.Errorf("%s did not fail; want an error matching %q", fn.Name(), pattern)
	case !re.MatchString(callErr.Error()):
		return nil, fmt.Errorf("%s failed with %q, which does not match %q", fn.Name(), callErr.Error(), pattern)
	}
	return starlark.None, nil
}

func prefix(msg string) string {
	if msg == "" {
		return ""
	}
	return msg + ": "
}

var fakeAgentBuiltin = Builtin{
	Name: "fake_agent",
	Params: []Param{
		{"outputs", "list of str", "[]", "what the agent prints in each iteration; the last repeats"},
		{"exit_codes", "list of int", "[]", "its exit code in each iteration; the last repeats (0 when empty)"},
	},
	Returns: "fake_agent",
	Doc:     "An agent for iterate(agent=…) in script tests that starts no process. .prompts holds the exact prompt of each iteration it answered, .calls how many.",
	fn:      fakeAgentFn,
}

func fakeAgentFn(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var outputs, codes *starlark.List
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "outputs?", &outputs, "exit_codes?", &codes); err != nil {
		return nil, err
	}
	f := &session.FakeAgent{}
	if outputs != nil {
		texts, err := stringList(outputs, "outputs")
		if err != nil {
			return nil, err
		}
		f.Outputs = texts
	}
	if codes != nil {
		for e := range codes.Elements() {
			var n int
			if err := starlark.AsInt(e, &n); err != nil {
				return nil, fmt.Errorf("exit_codes must hold ints, got %s", e.Type())
			}
			f.ExitCodes = append(f.ExitCodes, n)
		}
	}
	return &FakeAgent{f}, nil
}

// FakeAgent is a fake_agent() value.
type FakeAgent struct{ f *session.FakeAgent }

var _ starlark.HasAttrs = (*FakeAgent)(nil)

func (x *FakeAgent) String() string        { return fmt.Sprintf("fake_agent(calls=%d)", len(x.f.Prompts)) }
func (x *FakeAgent) Type() string          { return "fake_agent" }
func (x *FakeAgent) Freeze()               {}
func (x *FakeAgent) Truth() starlark.Bool  { return true }
func (x *FakeAgent) Hash() (uint32, error) { return 0, fmt.Errorf("unhashable: fake_agent") }
func (x *FakeAgent) AttrNames() []string   { return []string{"calls", "prompts"} }
func (x *FakeAgent) Attr(name string) (starlark.Value, error) {
	switch name {
	case "calls":
		return starlark.MakeInt(len(x.f.Prompts)), nil
	case "prompts":
		list := make([]starlark.Value, len(x.f.Prompts))
		for i, p := range x.f.Prompts {
			list[i] = starlark.String(p)
		}
		return starlark.NewList(list), nil
	}
	return nil, nil
}

var skipBuiltin = Builtin{
	Name:    "skip",
	Params:  []Param{{"reason", "str", "", "why the test does not run"}},
	Returns: "None",
	Doc:     "Ends the test as skipped: counted, and not a failure.",
	fn:      skipFn,
}

func skipFn(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var reason string
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "reason", &reason); err != nil {
		return nil, err
	}
	return nil, &host.Skip{Reason: reason}
}
