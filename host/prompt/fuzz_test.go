package prompt

import (
	"strings"
	"testing"
)

// FuzzTemplate feeds arbitrary fragment text through validation and
// composition with parameters: neither may panic, what Validate passes
// Compose renders, Validate refuses what Compose renders only for a name
// the parameters lack (Compose, which does not re-validate, prints it as
// nothing), and hiding control lines never changes the line count that
// error messages rely on.
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
		f := Fragment{Content: text, Parameters: params}
		p := only(f)
		verr := Validate(p)
		_, cerr := Compose(p, Iteration{Number: 1, Max: 1}, nil)
		switch {
		case verr == nil && cerr != nil:
			t.Fatalf("Validate passes %q, but Compose says %v", text, cerr)
		case verr != nil && cerr == nil && CheckParameterNames(f) == nil:
			t.Fatalf("Validate says %v of %q, which Compose renders, and not for a name it lacks", verr, text)
		}
	})
}
