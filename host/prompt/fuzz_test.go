package prompt

import (
	"strings"
	"testing"
)

// FuzzTemplate feeds arbitrary fragment text through validation and
// composition with parameters: neither may panic, they must agree on
// whether the text is usable, and hiding control lines never changes the
// line count that error messages rely on.
func FuzzTemplate(f *testing.F) {
	for _, seed := range []string{
		"Hello {{.name}}",
		"{{range .paths}}\n- {{.}}\n{{end}}",
		"{{if .x}}\n{{else}}\n{{end}}\n",
		"{{define \"t\"}}x{{end}}{{template \"t\" .}}",
		"{{.a.b.c}} {{$.x}} {{(.y).z}}",
		"{{- if .x -}}\n{{end}}",
		"{{",
		"}}{{end}}",
	} {
		f.Add(seed)
	}
	params := map[string]any{"name": "n", "paths": []any{"a", "b"}, "x": true}
	f.Fuzz(func(t *testing.T, text string) {
		if n := strings.Count(hideControlLines(text), "\n"); n != strings.Count(text, "\n") {
			t.Fatalf("hideControlLines changed the line count of %q", text)
		}
		p := only(Fragment{Content: text, Parameters: params})
		verr := Validate(p)
		_, cerr := Compose(p, Iteration{Number: 1, Max: 1}, nil)
		if (verr == nil) != (cerr == nil) {
			t.Fatalf("Validate says %v but Compose says %v for %q", verr, cerr, text)
		}
	})
}
