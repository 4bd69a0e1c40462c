package prompt

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// only returns a procedure whose observe phase is fs and whose other
// phases are empty.
func only(fs ...Fragment) Procedure {
	return Procedure{Name: "p", Phases: [4][]Fragment{fs}}
}

// phaseText composes p and returns the content of its observe section.
func phaseText(t *testing.T, p Procedure) string {
	t.Helper()
	got, err := Compose(p, Iteration{Number: 1, Max: 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	header := "PHASE 1: OBSERVE\n" + Observe.Directive() + "\n" + rule + "\n"
	_, text, found := strings.Cut(got, header)
	if !found {
		t.Fatalf("no observe section in:\n%s", got)
	}
	return text
}

func TestIterationLine(t *testing.T) {
	tests := []struct {
		it   Iteration
		want string
	}{
		{Iteration{Number: 3, Max: 10}, "Procedure: p\nIteration: 3 of 10\n\nYour Role:\n"},
		{Iteration{Number: 7, Max: 0}, "Procedure: p\nIteration: 7 (unlimited)\n\nYour Role:\n"},
		{Iteration{Number: 1, Max: 1}, "Procedure: p\nIteration: 1 of 1\n\nYour Role:\n"},
	}
	for _, tc := range tests {
		got, err := Compose(only(Fragment{Content: "x"}), tc.it, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(got, tc.want) {
			t.Errorf("Iteration%v: preamble lacks %q:\n%s", tc.it, tc.want, got)
		}
	}
}

func TestEmptyPhasesAreOmitted(t *testing.T) {
	p := Procedure{Name: "p", Phases: [4][]Fragment{
		nil,
		{{Content: "  \n\n "}},
		{{Content: "decide this"}},
		{},
	}}
	got, err := Compose(p, Iteration{Number: 1, Max: 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, absent := range []string{"OBSERVE", "ORIENT", "ACT"} {
		if strings.Contains(got, "PHASE") && strings.Contains(got, absent+"\n") {
			t.Errorf("phase %s has no content but is in the prompt:\n%s", absent, got)
		}
	}
	if !strings.HasSuffix(got, "PHASE 3: DECIDE\n"+Decide.Directive()+"\n"+rule+"\ndecide this\n") {
		t.Errorf("decide phase missing or prompt not ending in one newline:\n%s", got)
	}
}

func TestNoPhasesGivesPreambleOnly(t *testing.T) {
	got, err := Compose(Procedure{Name: "p"}, Iteration{Number: 1, Max: 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(got, "PHASE") || !strings.HasSuffix(got, "iteration outcome.\n") {
		t.Errorf("want the preamble alone, got:\n%s", got)
	}
}

func TestFragmentsJoinWithOneBlankLine(t *testing.T) {
	got := phaseText(t, only(
		Fragment{Content: "\n\n  first\n\n"},
		Fragment{Content: "   "},
		Fragment{Content: "second\n\n\n"},
		Fragment{Content: "# Third\n\n- a\n- b"},
	))
	want := "first\n\nsecond\n\n# Third\n\n- a\n- b\n"
	if got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestRelativePathsResolveAgainstDefiningDirectory(t *testing.T) {
	configDir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(configDir, "prompts"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(configDir, "prompts", "obs.md"), []byte("from the config dir"), 0o644); err != nil {
		t.Fatal(err)
	}
	// Started elsewhere, with a decoy of the same relative name.
	elsewhere := t.TempDir()
	os.MkdirAll(filepath.Join(elsewhere, "prompts"), 0o755)
	os.WriteFile(filepath.Join(elsewhere, "prompts", "obs.md"), []byte("from the working dir"), 0o644)
	t.Chdir(elsewhere)

	p := only(Fragment{Path: "prompts/obs.md", Dir: configDir})
	if err := Validate(p); err != nil {
		t.Fatal(err)
	}
	if got := phaseText(t, p); got != "from the config dir\n" {
		t.Errorf("got %q", got)
	}
	abs := only(Fragment{Path: filepath.Join(configDir, "prompts", "obs.md"), Dir: "/elsewhere"})
	if got := phaseText(t, abs); got != "from the config dir\n" {
		t.Errorf("absolute path: got %q", got)
	}
}

func TestShortAndOddPathsDoNotPanic(t *testing.T) {
	for _, path := range []string{"a", "a.md", "b:", "builtin:", "Builtin", "builtin:x", "builtin:fragments/", "builtin:fragments/observe", "builtin:fragments/../x.md", "/", "."} {
		err := Validate(only(Fragment{Path: path, Dir: t.TempDir()}))
		if err == nil {
			t.Errorf("path %q: want an error", path)
		}
	}
}

func TestValidateReportsEveryProblem(t *testing.T) {
	p := Procedure{Name: "build", Phases: [4][]Fragment{
		{{}, builtin("observe", "read_specs.md")},
		nil,
		{{Content: "a", Path: "b"}},
		{builtin("act", "nope.md")},
	}}
	err := Validate(p)
	var problems Problems
	if !errors.As(err, &problems) || len(problems) != 3 {
		t.Fatalf("want 3 problems, got %v", err)
	}
	for i, prefix := range []string{
		"procedure build: observe phase fragment 0: must specify",
		"procedure build: decide phase fragment 0: cannot specify both",
		"procedure build: act phase fragment 0: embedded fragment not found: builtin:fragments/act/nope.md",
	} {
		if !strings.HasPrefix(problems[i].Error(), prefix) {
			t.Errorf("problem %d = %q, want prefix %q", i, problems[i], prefix)
		}
	}
	if !strings.Contains(err.Error(), "either content or path\n\nprocedure build: decide") {
		t.Errorf("problems not separated by a blank line:\n%s", err)
	}
}

func TestBuiltinHints(t *testing.T) {
	tests := []struct {
		name, path string
		want       []string
		not        []string
	}{
		{"typo suggests the close name", "builtin:fragments/observe/read_spec.md",
			[]string{"Available builtin fragments for observe phase:\n  read_agents_md.md\n", "\n\nDid you mean: builtin:fragments/observe/read_specs.md"}, nil},
		{"lists the phase the path points into", "builtin:fragments/act/nothing.md",
			[]string{"Available builtin fragments for act phase:\n  modify_files.md\n"}, []string{"Did you mean"}},
		{"missing prefix", "fragments/observe/read_specs.md",
			[]string{"Did you mean: builtin:fragments/observe/read_specs.md\n"}, []string{"Tip:"}},
		{"upper-case prefix of a missing fragment", "BUILTIN:fragments/observe/none.md",
			[]string{"Note: The builtin: prefix is case-sensitive"}, []string{"Did you mean", "Tip:"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := Validate(only(Fragment{Path: tc.path, Dir: t.TempDir()}))
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error lacks %q:\n%s", w, err)
				}
			}
			for _, n := range tc.not {
				if strings.Contains(err.Error(), n) {
					t.Errorf("error has %q:\n%s", n, err)
				}
			}
		})
	}
}

func TestFragmentFileProblems(t *testing.T) {
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	err := Validate(only(Fragment{Path: "sub", Dir: dir}))
	if err == nil || !strings.Contains(err.Error(), "fragment path is a directory, not a file: sub") {
		t.Errorf("directory: got %v", err)
	}
	if os.Getuid() != 0 {
		secret := filepath.Join(dir, "secret.md")
		os.WriteFile(secret, []byte("x"), 0)
		err = Validate(only(Fragment{Path: "secret.md", Dir: dir}))
		if err == nil || !strings.Contains(err.Error(), "cannot read fragment file secret.md: permission denied") {
			t.Errorf("unreadable: got %v", err)
		}
	}
}

func TestTemplates(t *testing.T) {
	tests := []struct {
		name    string
		content string
		params  map[string]any
		want    string
	}{
		{"no parameters: text is not a template", "Hello {{.name}}", nil, "Hello {{.name}}\n"},
		{"empty parameters: text is a template", "Hello {{\"world\"}}", map[string]any{}, "Hello world\n"},
		{"missing parameter tested reads as nothing", "Hello {{if .name}}{{.name}}{{end}}!", map[string]any{"other": 1}, "Hello !\n"},
		{"null parameter reads as nothing", "[{{.name}}]", map[string]any{"name": nil}, "[]\n"},
		{"missing parameter is false", "{{if .x}}yes{{else}}no{{end}}", map[string]any{}, "no\n"},
		{"range over a missing parameter runs else", "{{range .x}}{{.}}{{else}}none{{end}}", map[string]any{}, "none\n"},
		{"$.name at top level", "{{range .xs}}{{.}}{{$.sep}}{{end}}", map[string]any{"xs": []any{"a", "b"}, "sep": ","}, "a,b,\n"},
		{"inline content with parameters (seed edge case)", "Read {{.file_type}} files: {{range .paths}}{{.}} {{end}}",
			map[string]any{"file_type": "spec", "paths": []any{"a.md", "b.md"}}, "Read spec files: a.md b.md\n"},
		{"maps range in key order", "{{range $k, $v := .m}}{{$k}}={{$v}} {{end}}",
			map[string]any{"m": map[string]any{"b": 2, "a": 1, "c": 3}}, "a=1 b=2 c=3\n"},
		{"control lines leave no line", "items:\n  {{range .xs}}\n- {{.}}\n  {{end}}  \nend",
			map[string]any{"xs": []any{"a", "b"}}, "items:\n- a\n- b\nend\n"},
		{"if/else lines leave no line", "{{if .x}}\nyes\n{{else}}\nno\n{{end}}\nafter",
			map[string]any{"x": false}, "no\nafter\n"},
		{"output actions keep their line", "{{.a}}\n{{.b}}", map[string]any{"a": 1, "b": 2}, "1\n2\n"},
		{"trim markers are the author's", "a\n{{- if .x -}}\nb\n{{- end}}", map[string]any{"x": true}, "ab\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := only(Fragment{Content: tc.content, Parameters: tc.params})
			if err := Validate(p); err != nil {
				t.Fatal(err)
			}
			if got := phaseText(t, p); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestTemplateErrorsNameTheLine(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "t.md"), []byte("line one\nline two\n{{if .x}}\n{{.y.z}\n"), 0o644)
	err := Validate(Procedure{Name: "audit", Phases: [4][]Fragment{nil, {{Path: "t.md", Dir: dir, Parameters: map[string]any{}}}}})
	want := "procedure audit: orient phase fragment 0: template parse error: bad character U+007D '}'\nAt line 4 of t.md"
	if err == nil || err.Error() != want {
		t.Errorf("got %v\nwant %s", err, want)
	}

	p := Procedure{Name: "audit", Phases: [4][]Fragment{{{Content: "a\n\n{{range .n}}{{end}}", Parameters: map[string]any{"n": "str"}}}}}
	err = Validate(p)
	want = "procedure audit: observe phase fragment 0: template execution error: range can't iterate over str\nAt line 3 of inline content"
	if err == nil || err.Error() != want {
		t.Errorf("got %v\nwant %s", err, want)
	}
	_, err = Compose(p, Iteration{Number: 1, Max: 1}, nil)
	want = "failed to compose observe phase: failed to process template: range can't iterate over str\nIn procedure audit, observe phase fragment 0 (inline content), line 3"
	if err == nil || err.Error() != want {
		t.Errorf("got %v\nwant %s", err, want)
	}
}

func TestComposeReportsMissingFiles(t *testing.T) {
	_, err := Compose(only(Fragment{Path: "gone.md", Dir: "/nowhere"}), Iteration{Number: 1, Max: 1}, nil)
	want := "failed to compose observe phase: failed to load fragment: fragment file not found: gone.md\nResolved to: /nowhere/gone.md"
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("got %v, want prefix %q", err, want)
	}
}

func TestContext(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	os.WriteFile("notes.md", []byte("\n\n  indented first line\n\nsecond paragraph\n\n\n"), 0o644)
	os.WriteFile("empty.md", nil, 0o644)
	os.Mkdir("adir", 0o755)

	tests := []struct {
		name   string
		values []string
		want   string
	}{
		{"inline", []string{"Focus on auth."}, "Focus on auth."},
		{"file", []string{"notes.md"}, "Source: notes.md\n\n  indented first line\n\nsecond paragraph"},
		{"empty file", []string{"empty.md"}, "Source: empty.md"},
		{"several in order", []string{"one", "notes.md", "three"},
			"one\n\nSource: notes.md\n\n  indented first line\n\nsecond paragraph\n\nthree"},
		{"multi-paragraph inline text stays whole, even a paragraph naming a file",
			[]string{"First paragraph.\n\nnotes.md\n\nLast."}, "First paragraph.\n\nnotes.md\n\nLast."},
		{"verbatim: code blocks and template syntax",
			[]string{"Focus on the auth module:\n```go\nfunc Authenticate(token string) error\n```\n{{.not_a_template}} <promise>"},
			"Focus on the auth module:\n```go\nfunc Authenticate(token string) error\n```\n{{.not_a_template}} <promise>"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Compose(only(Fragment{Content: "obs"}), Iteration{Number: 1, Max: 1}, tc.values)
			if err != nil {
				t.Fatal(err)
			}
			want := "outcome.\n\n" + rule + "\nCONTEXT\n" + rule + "\n" + tc.want + "\n\n" + rule + "\nPHASE 1: OBSERVE\n"
			if !strings.Contains(got, want) {
				t.Errorf("context section wrong:\n%s\nwant it to contain:\n%s", got, want)
			}
		})
	}
	for _, bad := range []struct{ value, want string }{
		{"adir", "failed to load context: context adir is a directory; give a file or inline text"},
		{"", "failed to load context: context value 1 is empty"},
		{" \n\n ", "failed to load context: context value 1 is empty"},
	} {
		_, err := Compose(only(Fragment{Content: "obs"}), Iteration{Number: 1, Max: 1}, []string{bad.value})
		if err == nil || err.Error() != bad.want {
			t.Errorf("context %q: got %v, want %s", bad.value, err, bad.want)
		}
	}
}

// TestContextKinds: a script's text stays text even when it names a file;
// its files must be there, and a file of the work that is not says when
// it is read.
func TestContextKinds(t *testing.T) {
	t.Chdir(t.TempDir())
	os.WriteFile("notes.md", []byte("The notes.\n"), 0o644)
	values := []ContextValue{{Value: "notes.md", Kind: Text}, {Value: "notes.md", Kind: File}, {Value: "notes.md", Kind: WorkFile}}
	got, err := ComposeWith(only(Fragment{Content: "obs"}), Iteration{Number: 1, Max: 1}, Sections{Context: values})
	if want := "\nnotes.md\n\nSource: notes.md\n\nThe notes.\n\nSource: notes.md\n\nThe notes.\n"; err != nil || !strings.Contains(got, want) {
		t.Errorf("got %v:\n%s\nwant it to contain:\n%s", err, got, want)
	}
	for _, tc := range []struct {
		kind ContextKind
		want string
	}{
		{File, "failed to load context: context file not found: PLAN.md"},
		{WorkFile, "failed to load context: context file not found: PLAN.md\n" + WorkTip},
	} {
		_, err := ComposeWith(only(Fragment{Content: "obs"}), Iteration{Number: 1, Max: 1}, Sections{Context: []ContextValue{{Value: "PLAN.md", Kind: tc.kind}}})
		if err == nil || err.Error() != tc.want {
			t.Errorf("kind %d: got %v, want %s", tc.kind, err, tc.want)
		}
	}
}

func TestNoContextNoSection(t *testing.T) {
	got, _ := Compose(only(Fragment{Content: "x"}), Iteration{Number: 1, Max: 1}, []string{})
	if strings.Contains(got, "CONTEXT") {
		t.Errorf("empty context gave a CONTEXT section:\n%s", got)
	}
}

func TestDeterministic(t *testing.T) {
	p := exampleAudit
	p.Phases[Observe] = append(p.Phases[Observe], Fragment{Content: "{{range $k, $v := .}}{{$k}}{{end}}", Parameters: map[string]any{
		"z": 1, "y": 2, "x": 3, "w": 4, "v": 5, "u": 6, "t": 7,
	}})
	first, err := Compose(p, Iteration{Number: 2, Max: 5}, []string{"ctx"})
	if err != nil {
		t.Fatal(err)
	}
	for range 20 {
		again, _ := Compose(p, Iteration{Number: 2, Max: 5}, []string{"ctx"})
		if again != first {
			t.Fatal("the same inputs gave different prompts")
		}
	}
	if abs, _ := filepath.Abs(project); strings.Contains(first, abs) {
		t.Error("the prompt holds an absolute path of this machine")
	}
}

func TestParsePhase(t *testing.T) {
	for i, name := range PhaseNames() {
		p, ok := ParsePhase(name)
		if !ok || p != Phases[i] || p.String() != name || p.Number() != i+1 {
			t.Errorf("ParsePhase(%q) = %v, %v", name, p, ok)
		}
	}
	if _, ok := ParsePhase("OBSERVE"); ok {
		t.Error("phase names are lower case")
	}
}

func TestRunawayTemplateFails(t *testing.T) {
	p := only(Fragment{Content: "{{range 100000000}}xxxxxxxxxx{{end}}", Parameters: map[string]any{}})
	err := Validate(p)
	if err == nil || !strings.Contains(err.Error(), "template execution error: output exceeds 1048576 bytes") {
		t.Errorf("got %v", err)
	}
}

func TestIterationLineWithMinimum(t *testing.T) {
	for it, want := range map[Iteration]string{
		{Number: 3, Max: 10}:         "3 of 10",
		{Number: 7}:                  "7 (unlimited)",
		{Number: 2, Max: 10, Min: 3}: "2 of 10 (minimum 3)",
		{Number: 2, Min: 3}:          "2 (unlimited, minimum 3)",
		{Number: 2, Max: 10, Min: 1}: "2 of 10",
	} {
		if got := it.String(); got != want {
			t.Errorf("%+v: %q, want %q", it, got, want)
		}
	}
}

// TestUnknownParameters: a name a template prints and its parameters lack
// is a problem, with the name it most likely meant; one it only tests is
// optional, and inside a with or a range only $.name is a parameter.
func TestUnknownParameters(t *testing.T) {
	for _, tc := range []struct {
		content string
		params  map[string]any
		want    string // "" for no problem
	}{
		{"Do the {{.Taks}}.", map[string]any{"Task": "tests"}, "{{.Taks}} is not a parameter of this fragment (it gives Task); did you mean .Task?"},
		{"{{.a}} {{.b}}", map[string]any{}, "{{.a}} is not a parameter of this fragment (it gives none)\ntemplate parameter error: {{.b}}"},
		{"{{range .xs}}{{$.sep}}{{end}}", map[string]any{"xs": []any{1}}, "{{.sep}} is not a parameter"},
		{"{{if .extra}}{{.extra}}{{end}}", map[string]any{}, ""},
		{"{{.extra}}{{with .extra}}{{.}}{{end}}", map[string]any{}, ""},
		{"{{range .items}}{{.name}}{{end}}", map[string]any{"items": []any{map[string]any{"name": "a"}}}, ""},
		{"{{with .a}}{{.b}}{{else}}{{.c}}{{end}}", map[string]any{"a": nil}, "{{.c}} is not a parameter"},
		{"[{{.name}}]", map[string]any{"name": nil}, ""},
	} {
		err := Validate(only(Fragment{Content: tc.content, Parameters: tc.params}))
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%q: %v", tc.content, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%q: got %v, want %q", tc.content, err, tc.want)
		}
	}
}
