package builtins

import (
	"slices"
	"testing"

	"go.starlark.net/starlark"

	"rooda/host/agentstream"
	"rooda/host/loop"
	"rooda/host/process"
	"rooda/host/session"
	"rooda/host/worktree"
)

// TestTypesAreTheValues: every documented type's fields are exactly the
// attributes of the value a script gets, so the reference and the stub
// cannot drift from the code.
func TestTypesAreTheValues(t *testing.T) {
	it := &loop.Iteration{}
	values := map[string]starlark.HasAttrs{
		"iteration":      iterationValue(it).(starlark.HasAttrs),
		"loop_result":    resultValue(loop.Result{Last: it}).(starlark.HasAttrs),
		"stats":          attr(t, resultValue(loop.Result{Last: it}), "stats"),
		"command_result": commandValue(process.Result{}, true).(starlark.HasAttrs),
		"procedure":      &Procedure{},
		"fragment":       &Fragment{},
		"file":           &ContextFile{},
		"fake_agent":     &FakeAgent{f: &session.FakeAgent{}},
		"worktree":       worktreeValue{&worktree.Worktree{}},
		"merge_result":   mergeValue(worktree.MergeResult{}, true).(starlark.HasAttrs),
		"usage":          usageValue(loop.Spend{Tokens: agentstream.Usage{Input: 1}}).(starlark.HasAttrs),
	}
	methods := map[string]bool{}
	for typ, ms := range Methods() {
		for _, m := range ms {
			methods[typ+"."+m.Name] = true
		}
	}
	for _, typ := range Types() {
		v, ok := values[typ.Name]
		if !ok {
			if typ.Fields != nil {
				t.Errorf("%s: no value to check its fields against", typ.Name)
			}
			continue
		}
		var want []string
		for _, name := range v.AttrNames() {
			if !methods[typ.Name+"."+name] {
				want = append(want, name)
			}
		}
		var got []string
		for _, f := range typ.Fields {
			got = append(got, f.Name)
		}
		slices.Sort(want)
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("%s documents %v; the value has %v", typ.Name, got, want)
		}
	}
}

func attr(t *testing.T, v starlark.Value, name string) starlark.HasAttrs {
	t.Helper()
	a, err := v.(starlark.HasAttrs).Attr(name)
	if err != nil {
		t.Fatal(err)
	}
	return a.(starlark.HasAttrs)
}
