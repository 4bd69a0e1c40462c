package builtins

import (
	"strings"
	"testing"

	"go.starlark.net/starlark"
)

// TestSafe: a builtin that panics fails its call with an internal error
// naming it; one that returns a Go nil returns None.
func TestSafe(t *testing.T) {
	panics := safe("boom", func(*starlark.Thread, *starlark.Builtin, starlark.Tuple, []starlark.Tuple) (starlark.Value, error) {
		var m map[string]int
		m["x"] = 1
		return starlark.None, nil
	})
	_, err := starlark.Call(&starlark.Thread{}, starlark.NewBuiltin("boom", panics), nil, nil)
	if err == nil || !strings.Contains(err.Error(), "internal error in boom: assignment to entry in nil map") {
		t.Errorf("error %v", err)
	}
	nothing := safe("nothing", func(*starlark.Thread, *starlark.Builtin, starlark.Tuple, []starlark.Tuple) (starlark.Value, error) {
		return nil, nil
	})
	v, err := starlark.Call(&starlark.Thread{}, starlark.NewBuiltin("nothing", nothing), nil, nil)
	if err != nil || v != starlark.None {
		t.Errorf("got %v, %v", v, err)
	}
}

// TestRegistryIsDocumented: every builtin has a doc and documents each
// parameter it accepts.
func TestRegistryIsDocumented(t *testing.T) {
	all := Registry()
	for _, methods := range Methods() {
		all = append(all, methods...)
	}
	for _, v := range Values() {
		if v.Doc == "" || v.Type == "" {
			t.Errorf("%s is not documented", v.Name)
		}
	}
	for _, b := range all {
		if b.Doc == "" || b.Returns == "" {
			t.Errorf("%s has no doc or return type", b.Name)
		}
		for _, p := range b.Params {
			if p.Doc == "" || p.Type == "" {
				t.Errorf("%s(%s) is not documented", b.Name, p.Name)
			}
		}
	}
}
