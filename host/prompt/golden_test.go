package prompt

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"rooda/fragments"
	"rooda/internal/golden"
)

func builtin(phase, name string) Fragment {
	return Fragment{Path: fragments.Ref(phase, name)}
}

// project is the directory the examples' config file would live in.
var project = filepath.Join("testdata", "project")

func file(path string) Fragment { return Fragment{Path: path, Dir: project} }

// The procedures of seed 000's examples.
var (
	exampleBuild = Procedure{Name: "build", Phases: [4][]Fragment{
		{builtin("observe", "read_agents_md.md"), builtin("observe", "read_specs.md")},
		{builtin("orient", "understand_task_requirements.md")},
		{builtin("decide", "plan_implementation_approach.md")},
		{builtin("act", "modify_files.md")},
	}}
	exampleBuildWithTests = Procedure{Name: "build", Phases: [4][]Fragment{
		exampleBuild.Phases[Observe], exampleBuild.Phases[Orient], exampleBuild.Phases[Decide],
		{builtin("act", "modify_files.md"), builtin("act", "run_tests.md")},
	}}
	exampleCustomBuild = Procedure{Name: "custom-build", Phases: [4][]Fragment{
		{file("fragments/observe/custom_observe.md"), {Content: "Also check for any TODO comments in the code."}},
		{file("fragments/orient/custom_orient.md")},
		{builtin("decide", "plan_implementation_approach.md")},
		{builtin("act", "modify_files.md")},
	}}
	exampleUnlimited = Procedure{Name: "build", Phases: [4][]Fragment{
		{builtin("observe", "read_agents_md.md")},
		exampleBuild.Phases[Orient], exampleBuild.Phases[Decide], exampleBuild.Phases[Act],
	}}
	exampleAudit = Procedure{Name: "custom-audit", Phases: [4][]Fragment{
		{{Path: "fragments/observe/read_files.md", Dir: project, Parameters: map[string]any{
			"file_type":     "specification",
			"paths":         []any{"specs/api.md", "specs/database.md"},
			"include_tests": true,
		}}},
		{builtin("orient", "evaluate_against_quality_criteria.md")},
		{builtin("decide", "identify_issues.md")},
		{builtin("act", "write_audit_report.md")},
	}}
)

// TestSeedExamples composes the procedures of seed 000's Examples 1–5 and
// checks the prompt against the example's displayed output, byte for byte,
// with each "[Content from X]" placeholder replaced by X's text. Examples
// 2 and 5 show only the phases, so only the end of the prompt is compared.
func TestSeedExamples(t *testing.T) {
	tests := []struct {
		example string
		proc    Procedure
		it      Iteration
		context []string
		partial bool
	}{
		{"example1", exampleBuildWithTests, Iteration{Number: 1, Max: 5}, nil, false},
		{"example2", exampleCustomBuild, Iteration{Number: 1, Max: 5}, nil, true},
		{"example3", exampleBuild, Iteration{Number: 3, Max: 10}, []string{"Focus on the authentication module. The new feature should integrate with the existing OAuth2 flow."}, false},
		{"example4", exampleUnlimited, Iteration{Number: 7, Max: 0}, nil, false},
		{"example5", exampleAudit, Iteration{Number: 1, Max: 5}, nil, true},
	}
	for _, tc := range tests {
		t.Run(tc.example, func(t *testing.T) {
			got, err := Compose(tc.proc, tc.it, tc.context)
			if err != nil {
				t.Fatal(err)
			}
			golden.Check(t, tc.example, got)
			want := expandPlaceholders(t, readSeed(t, tc.example))
			if tc.partial && !strings.HasSuffix(got, want) || !tc.partial && got != want {
				t.Errorf("prompt differs from seed 000's %s\n--- got ---\n%s\n--- seed ---\n%s", tc.example, got, want)
			}
		})
	}
}

func readSeed(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "seed", name+".txt"))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

var (
	placeholder = regexp.MustCompile(`\[Content from ([a-z_]+\.md)\]`)
	phaseTitle  = regexp.MustCompile(`^PHASE \d: ([A-Z]+)$`)
)

// expandPlaceholders replaces "[Content from name.md]" with the text of
// the builtin fragment of that name in the phase the line belongs to.
func expandPlaceholders(t *testing.T, text string) string {
	t.Helper()
	lines := strings.Split(text, "\n")
	phase := ""
	for i, line := range lines {
		if m := phaseTitle.FindStringSubmatch(line); m != nil {
			phase = strings.ToLower(m[1])
		}
		lines[i] = placeholder.ReplaceAllStringFunc(line, func(p string) string {
			name := placeholder.FindStringSubmatch(p)[1]
			content, ok := fragments.Read(fragments.Ref(phase, name))
			if !ok {
				t.Fatalf("seed names %s in phase %q, which the library lacks", name, phase)
			}
			return strings.TrimSpace(content)
		})
	}
	return strings.Join(lines, "\n")
}

// errorText is how the CLI shows err.
func errorText(err error) string { return "Error: " + err.Error() + "\n" }

// TestSeedErrors reproduces the error texts of seed 000's Example 6 and
// Edge Cases. Where rooda tells more than the seed (the fragment a
// composition error comes from), the seed's text is the start of ours.
func TestSeedErrors(t *testing.T) {
	root := "/project/root" // the seed's config directory; it need not exist
	tests := []struct {
		seed    string
		proc    Procedure
		compose bool // the error is met composing, not validating
		extends bool
	}{
		{"example6", Procedure{Name: "broken", Phases: [4][]Fragment{
			{builtin("observe", "missing.md")},
			exampleBuild.Phases[Orient], exampleBuild.Phases[Decide], exampleBuild.Phases[Act],
		}}, false, false},
		{"edge_fragment_with_neither_content_nor_path", Procedure{Name: "build", Phases: [4][]Fragment{
			{{}},
		}}, false, false},
		{"edge_fragment_with_both_content_and_path", Procedure{Name: "build", Phases: [4][]Fragment{
			{builtin("observe", "read_specs.md"), {Content: "x", Path: "y.md"}},
		}}, false, false},
		{"edge_missing_fragment_file", Procedure{Name: "build", Phases: [4][]Fragment{
			{builtin("observe", "read_specs.md"), builtin("observe", "read_impl.md"), {Path: "fragments/missing.md", Dir: root}},
		}}, false, false},
		{"edge_template_syntax_error", Procedure{Name: "custom-audit", Phases: [4][]Fragment{
			{{Content: "Read the {{.file_type", Parameters: map[string]any{"file_type": "spec"}}},
		}}, false, false},
		// Go's text/template no longer fails on range over nil (it
		// ranges over nothing), so the seed's "<nil>" is "true" here:
		// the message is the same otherwise.
		{"edge_template_execution_error", Procedure{Name: "custom-audit", Phases: [4][]Fragment{
			{{Content: "{{range .paths}}{{.}}{{end}}", Parameters: map[string]any{"paths": true}}},
		}}, true, true},
		{"edge_builtin_prefix_case_sensitivity", Procedure{Name: "build", Phases: [4][]Fragment{
			{{Path: "Builtin:fragments/observe/read_agents_md.md", Dir: root}},
		}}, false, false},
	}
	for _, tc := range tests {
		t.Run(tc.seed, func(t *testing.T) {
			var err error
			if tc.compose {
				_, err = Compose(tc.proc, Iteration{Number: 1, Max: 5}, nil)
			} else {
				err = Validate(tc.proc)
			}
			if err == nil {
				t.Fatal("no error")
			}
			got := errorText(err)
			golden.Check(t, tc.seed, got)
			want := readSeed(t, tc.seed)
			if tc.extends {
				want = strings.TrimSuffix(want, "\n")
			}
			if tc.extends && !strings.HasPrefix(got, want) || !tc.extends && got != want {
				t.Errorf("error differs from seed 000\n--- got ---\n%s--- seed ---\n%s", got, want)
			}
		})
	}
}

// TestEverySection: a prompt with every section holds them in the order
// the agent is told of them: the preamble, CONTEXT, CONTEXT ADDED WHILE
// RUNNING, PREVIOUS ITERATION, then the phases.
func TestEverySection(t *testing.T) {
	small := Procedure{Name: "build", Phases: [4][]Fragment{
		{{Content: "Read the task."}}, {{Content: "Weigh it."}}, {{Content: "Choose a step."}}, {{Content: "Take it."}},
	}}
	got, err := ComposeWith(small, Iteration{Number: 2, Max: 3}, Sections{
		Context: GivenValues([]string{"Given on the command line."}),
		Running: []string{"Added while running, first.", "Added while running, second."},
		Digest:  "Exit code: 0\nFiles changed: main.go",
	})
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "every_section", got)
}
