package host

import (
	"strings"
	"testing"

	"go.starlark.net/starlark"
)

func TestMeasure(t *testing.T) {
	list := starlark.NewList([]starlark.Value{starlark.String("ab"), starlark.MakeInt(123)})
	dict := starlark.NewDict(1)
	dict.SetKey(starlark.String("k"), list)
	cycle := starlark.NewList(nil)
	cycle.Append(cycle)
	deep := starlark.Value(starlark.NewList(nil))
	for range MaxNesting - 1 {
		deep = starlark.Tuple{deep}
	}
	for _, tc := range []struct {
		name string
		v    starlark.Value
		size int64
		err  string
	}{
		{"string", starlark.String("hello"), 7, ""},
		{"list", list, 2 + 2 + 4 + 3, ""},
		{"dict", dict, 2 + 2 + 3 + (2 + 2 + 4 + 3), ""},
		{"a list that holds itself", cycle, 2 + 1 + 5, ""},
		{"as deep as allowed", deep, int64(MaxNesting-1)*3 + 2, ""},
		{"deeper", starlark.Tuple{deep}, 0, "nested more than 1000 levels deep"},
	} {
		size, err := Measure(tc.v)
		switch {
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.err)
		case tc.err == "" && (err != nil || size != tc.size):
			t.Errorf("%s: %d, %v; want %d", tc.name, size, err, tc.size)
		}
	}
}

func TestJSONNesting(t *testing.T) {
	deep := strings.Repeat("[", MaxNesting+1) + strings.Repeat("]", MaxNesting+1)
	for text, ok := range map[string]bool{
		`[[{"a": [1]}]]`: true,
		strings.Repeat("[", MaxNesting) + strings.Repeat("]", MaxNesting): true,
		`"` + strings.Repeat("[", 5000) + `"`:                             true, // inside a string
		`["\"` + strings.Repeat("[", 5000) + `"]`:                         true, // after an escaped quote
		deep: false,
	} {
		if err := JSONNesting("decode", text); (err == nil) != ok {
			t.Errorf("%.40s…: %v", text, err)
		}
	}
}
