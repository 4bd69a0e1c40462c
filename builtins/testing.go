package builtins

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"
	"go.starlark.net/syntax"

	"rooda/host"
	"rooda/host/agentstream"
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

// TestPredeclaredOnce makes TestPredeclared(nil) when first called, for
// host.Options: a check of a script that is no test makes none.
func TestPredeclaredOnce() func() starlark.StringDict {
	return sync.OnceValue(func() starlark.StringDict { return TestPredeclared(nil) })
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
		{"outputs", "list of str", "[]", "what the agent says in each turn (each iteration it runs); the last repeats, as in every list here"},
		{"exit_codes", "list of int", "[]", "its exit code in each turn (0 when empty; 1 in a turn with a cause)"},
		{"format", "str", `"text"`, "the CLI whose output it prints (\"claude-stream-json\", \"codex-json\", … as an alias's output:): each turn's output, usage, cost and cause are written as that CLI's stream and read back as a real one is, so it.output is the JSON and it.text the output; \"text\" prints the output as it is"},
		{"costs", "list of float", "[]", "the dollars its CLI reports in each turn: it.cost, and what max_cost_usd counts"},
		{"usage", "list of dict", "[]", "the tokens its CLI reports in each turn, {\"input\": 100, \"output\": 50, \"cache_read\": 0, \"cache_write\": 0} (keys left out are 0): it.usage, and what max_tokens counts"},
		{"durations", "list of int | float | str", "[]", "how long each turn takes on the test clock, seconds or \"10m\": it.duration, now() and max_duration see it"},
		{"timed_out", "list of bool", "[]", "the turns that run into the iteration timeout: it.timed_out, cause \"timeout\", exit code 143, and the timeout taken on the test clock unless durations says otherwise"},
		{"causes", "list of str", "[]", "the error its CLI reports in each turn (a format other than text): \"rate_limited\", \"usage_limit\" and \"overloaded\" (it.cause \"rate_limited\"), \"auth\" (which ends the loop, or, in a rotation, takes the agent out of it), \"network\", \"other\" (it.cause \"agent_failed\"); None for none"},
		{"writes", "list of dict", "[]", "the files each turn writes in its working directory (a worktree's with iterate(worktree=…)), {\"PLAN.md\": \"…\"}, by path relative to it; {} for none"},
		{"name", "str", "None", "what it.agent, the log and the record call it; else fake_agent, or fake_agent N in the order first used"},
	},
	Returns: "fake_agent",
	Doc: "An agent for iterate(agent=…) in script tests that starts no process. .prompts holds the exact prompt of each iteration it answered, .calls how many. " +
		"What a CLI never reports is refused (codex-json reports no cost, copilot-json no tokens, a text agent no cause), so a test cannot pass on a reply no agent gives; " +
		"costs and usage given to a text agent are reported beside its output.",
	Example: `# fake_agent_test.star — run with: rooda script test fake_agent_test.star
def test_a_plan_then_success():
    agent = fake_agent(
        outputs = ["Planned.", "<promise>SUCCESS</promise>"],
        format = "claude-stream-json",
        costs = [0.5],
        usage = [{"input": 100, "output": 50}],
        durations = ["10m"],
        writes = [{"PLAN.md": "1. the parser"}, {}],
    )
    r = iterate(compose("p", act = [fragment(content = "Work.")]), agent = agent, max_iterations = 5)
    assert.eq((r.status, r.iterations, r.stats.total), ("success", 2, 1200.0))
    assert.eq((r.last.text, r.last.cost, r.last.usage.total), ("<promise>SUCCESS</promise>", 0.5, 150))
    assert.eq(read("PLAN.md"), "1. the parser")`,
	fn: fakeAgentFn,
}

func fakeAgentFn(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var outputs, codes, costs, usage, durations, timedOut, causes, writes *starlark.List
	format, name := "text", ""
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "outputs?", &outputs, "exit_codes?", &codes, "format?", &format,
		"costs?", &costs, "usage?", &usage, "durations?", &durations, "timed_out?", &timedOut, "causes?", &causes,
		"writes?", &writes, "name??", &name); err != nil {
		return nil, err
	}
	f := &session.FakeAgent{Name: name}
	var err error
	if f.Format, err = agentstream.ParseFormat(format); err != nil {
		return nil, fmt.Errorf("format: %w", err)
	}
	if outputs != nil {
		if f.Outputs, err = stringList(outputs, "outputs"); err != nil {
			return nil, err
		}
	}
	if f.ExitCodes, err = each(codes, "exit_codes", func(v starlark.Value) (n int, err error) { return n, starlark.AsInt(v, &n) }); err != nil {
		return nil, err
	}
	if f.Costs, err = each(costs, "costs", fakeCost); err != nil {
		return nil, err
	}
	if f.Usage, err = each(usage, "usage", fakeUsage); err != nil {
		return nil, err
	}
	if f.Durations, err = each(durations, "durations", func(v starlark.Value) (time.Duration, error) {
		var d duration
		return d.d, d.Unpack(v)
	}); err != nil {
		return nil, err
	}
	if f.TimedOut, err = each(timedOut, "timed_out", fakeBool); err != nil {
		return nil, err
	}
	if f.Causes, err = each(causes, "causes", fakeCause); err != nil {
		return nil, err
	}
	if f.Writes, err = each(writes, "writes", fakeWrites); err != nil {
		return nil, err
	}
	if err := f.Check(); err != nil {
		return nil, err
	}
	return &FakeAgent{f}, nil
}

// each converts every element of list (nil: none) with conv; an error
// names the element.
func each[T any](list *starlark.List, what string, conv func(starlark.Value) (T, error)) ([]T, error) {
	if list == nil {
		return nil, nil
	}
	var out []T
	for i := range list.Len() {
		v, err := conv(list.Index(i))
		if err != nil {
			return nil, fmt.Errorf("%s[%d]: %w", what, i, err)
		}
		out = append(out, v)
	}
	return out, nil
}

func fakeCost(v starlark.Value) (float64, error) {
	f, ok := starlark.AsFloat(v)
	if !ok || f < 0 || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, fmt.Errorf("want dollars, a number from 0, got %s", v)
	}
	return f, nil
}

func fakeBool(v starlark.Value) (bool, error) {
	b, ok := v.(starlark.Bool)
	if !ok {
		return false, fmt.Errorf("want True or False, got %s", v.Type())
	}
	return bool(b), nil
}

// fakeCauses are the causes a fake agent's CLI may report.
var fakeCauses = []agentstream.Cause{agentstream.CauseRateLimited, agentstream.CauseUsageLimit, agentstream.CauseOverloaded,
	agentstream.CauseAuth, agentstream.CauseNetwork, agentstream.CauseOther}

func fakeCause(v starlark.Value) (agentstream.Cause, error) {
	if v == starlark.None {
		return "", nil
	}
	s, ok := starlark.AsString(v)
	if !ok || !slices.Contains(fakeCauses, agentstream.Cause(s)) {
		return "", fmt.Errorf("want None or one of %s, got %s", causeNames(), v)
	}
	return agentstream.Cause(s), nil
}

func causeNames() string {
	var names []string
	for _, c := range fakeCauses {
		names = append(names, strconv.Quote(string(c)))
	}
	return strings.Join(names, ", ")
}

// fakeUsage reads {"input": 100, "output": 50, …}.
func fakeUsage(v starlark.Value) (agentstream.Usage, error) {
	var u agentstream.Usage
	d, ok := v.(*starlark.Dict)
	if !ok {
		return u, fmt.Errorf("want a dict like {\"input\": 100, \"output\": 50}, got %s", v.Type())
	}
	fields := map[string]*int64{"input": &u.Input, "output": &u.Output, "cache_read": &u.CacheRead, "cache_write": &u.CacheWrite}
	for _, item := range d.Items() {
		key, _ := starlark.AsString(item[0])
		field, known := fields[key]
		if !known {
			return u, fmt.Errorf("unknown key %s; the keys are input, output, cache_read, cache_write", item[0])
		}
		if err := starlark.AsInt(item[1], field); err != nil || *field < 0 {
			return u, fmt.Errorf("%s: want a count of tokens, got %s", key, item[1])
		}
	}
	return u, nil
}

// fakeWrites reads {"PLAN.md": "…"}.
func fakeWrites(v starlark.Value) (map[string]string, error) {
	d, ok := v.(*starlark.Dict)
	if !ok {
		return nil, fmt.Errorf("want a dict of path to content, got %s", v.Type())
	}
	files := map[string]string{}
	for _, item := range d.Items() {
		path, ok1 := starlark.AsString(item[0])
		content, ok2 := starlark.AsString(item[1])
		if !ok1 || !ok2 {
			return nil, fmt.Errorf("want a path and its content as strings, got %s: %s", item[0].Type(), item[1].Type())
		}
		files[path] = content
	}
	return files, nil
}

// FakeAgent is a fake_agent() value.
type FakeAgent struct{ f *session.FakeAgent }

var _ starlark.HasAttrs = (*FakeAgent)(nil)

func (x *FakeAgent) String() string        { return fmt.Sprintf("fake_agent(calls=%d)", len(x.f.Received())) }
func (x *FakeAgent) Type() string          { return "fake_agent" }
func (x *FakeAgent) Freeze()               {}
func (x *FakeAgent) Truth() starlark.Bool  { return true }
func (x *FakeAgent) Hash() (uint32, error) { return 0, fmt.Errorf("unhashable: fake_agent") }
func (x *FakeAgent) AttrNames() []string   { return []string{"calls", "prompts"} }
func (x *FakeAgent) Attr(name string) (starlark.Value, error) {
	switch name {
	case "calls":
		return starlark.MakeInt(len(x.f.Received())), nil
	case "prompts":
		received := x.f.Received()
		list := make([]starlark.Value, len(received))
		for i, p := range received {
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
