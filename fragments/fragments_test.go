package fragments

import (
	"io/fs"
	"path"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestCatalogueMatchesFiles keeps the ordered catalogue and the embedded
// files in step: every file listed once, nothing listed that is missing.
func TestCatalogueMatchesFiles(t *testing.T) {
	total := 0
	for _, phase := range Phases {
		entries, err := fs.ReadDir(Files(), phase)
		if err != nil {
			t.Fatal(err)
		}
		var onDisk []string
		for _, e := range entries {
			onDisk = append(onDisk, e.Name())
		}
		listed := Names(phase)
		sorted := slices.Sorted(slices.Values(listed))
		if !slices.Equal(sorted, onDisk) {
			t.Errorf("%s: catalogue %v\nfiles %v", phase, sorted, onDisk)
		}
		if len(slices.Compact(sorted)) != len(listed) {
			t.Errorf("%s: the catalogue lists a fragment twice", phase)
		}
		total += len(listed)
	}
	if total < 55 {
		t.Errorf("the library has %d fragments; it promises at least 55", total)
	}
}

func TestSeedFragmentsExist(t *testing.T) {
	refs := []string{
		// seed 000, Example 6, in its order
		"observe/read_agents_md.md", "observe/scan_repo_structure.md", "observe/detect_build_system.md",
		"observe/detect_work_tracking.md", "observe/verify_commands.md", "observe/query_work_tracking.md",
		"observe/read_specs.md", "observe/read_impl.md", "observe/read_task_input.md", "observe/read_draft_plan.md",
		"observe/read_task_details.md", "observe/run_tests.md", "observe/run_lints.md",
		// seed 000's examples
		"orient/understand_task_requirements.md", "orient/evaluate_against_quality_criteria.md",
		"decide/plan_implementation_approach.md", "decide/identify_issues.md", "act/modify_files.md", "act/run_tests.md",
		// seed 001
		"decide/check_if_blocked.md", "act/emit_success.md", "act/emit_failure.md",
		"act/write_audit_report.md", "act/write_draft_plan.md", "act/write_gap_report.md",
	}
	for _, r := range refs {
		if _, ok := Read(Prefix + "fragments/" + r); !ok {
			t.Errorf("missing %s", r)
		}
	}
	if got := Names("observe")[:13]; !slices.Equal(got, observeOrderOfSeed) {
		t.Errorf("observe order %v, want seed 000's %v", got, observeOrderOfSeed)
	}
}

var observeOrderOfSeed = []string{"read_agents_md.md", "scan_repo_structure.md", "detect_build_system.md",
	"detect_work_tracking.md", "verify_commands.md", "query_work_tracking.md", "read_specs.md", "read_impl.md",
	"read_task_input.md", "read_draft_plan.md", "read_task_details.md", "run_tests.md", "run_lints.md"}

// TestFragmentsAreWellFormed: every fragment has a title and content, and
// is short enough to compose freely.
func TestFragmentsAreWellFormed(t *testing.T) {
	forEach(t, func(t *testing.T, ref, text string) {
		if strings.TrimSpace(text) == "" {
			t.Fatal("empty")
		}
		if !strings.HasPrefix(text, "# ") {
			t.Error("does not start with a # title")
		}
		if !strings.HasSuffix(text, "\n") || strings.HasSuffix(text, "\n\n") {
			t.Error("does not end in exactly one newline")
		}
		if n := len(strings.Fields(text)); n > 200 {
			t.Errorf("%d words; keep fragments under 200", n)
		}
		if strings.Contains(text, "{{") {
			t.Error("holds {{, which a template would take as an action")
		}
	})
}

// promise matches every promise tag a fragment writes, right or wrong.
var promise = regexp.MustCompile(`<promise>[^<]*</promise>|<promise>|</promise>`)

// TestSignalsAreExact: the scanner matches only the exact tags, so a
// fragment that shows any other form (<promise>FAILURE: reason</promise>)
// teaches agents a signal that is never seen.
func TestSignalsAreExact(t *testing.T) {
	forEach(t, func(t *testing.T, ref, text string) {
		for _, tag := range promise.FindAllString(text, -1) {
			if tag != "<promise>SUCCESS</promise>" && tag != "<promise>FAILURE</promise>" {
				t.Errorf("signal not in the exact format: %q", tag)
			}
		}
	})
}

// TestSeed001Fragments checks the content seed 001 requires of the
// signalling fragments.
func TestSeed001Fragments(t *testing.T) {
	want := map[string][]string{
		"act/emit_success.md": {
			"Output the exact signal: <promise>SUCCESS</promise>",
			"After the signal, include summary of what was accomplished",
			"For work tracking procedures (build): Signal SUCCESS only when no ready work remains.",
			"For planning/auditing procedures: Signal SUCCESS only when output is minimal, complete, and accurate.",
			"Example (build procedure, no work remaining):\n<promise>SUCCESS</promise>\n\nAll ready work completed:",
		},
		"act/emit_failure.md": {
			"Output the exact signal: <promise>FAILURE</promise>",
			"After the signal, explain why work is blocked",
			"Example:\n<promise>FAILURE</promise>\n\nWork is blocked because:",
		},
		"decide/check_if_blocked.md": {
			"If blocked, output the exact signal: <promise>FAILURE</promise>\nThen explain the blockers.",
		},
		"act/write_audit_report.md": {
			"After writing, validate the report:\n- Is it minimal? (No unnecessary content)\n- Is it complete? (All findings documented)\n- Is it accurate? (Evidence supports conclusions)\n\nOnly proceed to emit_success if validation passes.",
		},
		"act/write_draft_plan.md": {
			"After writing, validate the plan:\n- Is it minimal? (No unnecessary tasks)\n- Is it complete? (All requirements covered)\n- Is it accurate? (Tasks are actionable and correctly scoped)\n\nOnly proceed to emit_success if validation passes.",
		},
		"act/write_gap_report.md": {
			"After writing, validate the report:\n- Is it minimal? (No unnecessary content)\n- Is it complete? (All gaps documented)\n- Is it accurate? (Gap analysis is correct)\n\nOnly proceed to emit_success if validation passes.",
		},
	}
	for ref, lines := range want {
		text, ok := Read(Prefix + "fragments/" + ref)
		if !ok {
			t.Errorf("missing %s", ref)
			continue
		}
		for _, l := range lines {
			if !strings.Contains(text, l) {
				t.Errorf("%s lacks %q", ref, l)
			}
		}
	}
}

func TestRead(t *testing.T) {
	if _, ok := Read("builtin:fragments/observe/read_specs.md"); !ok {
		t.Error("a library path was not found")
	}
	for _, bad := range []string{"", "builtin:", "fragments/observe/read_specs.md", "builtin:observe/read_specs.md",
		"builtin:fragments/observe", "builtin:fragments/observe/", "builtin:fragments/../fragments/observe/read_specs.md",
		"builtin:fragments/embed.go", "Builtin:fragments/observe/read_specs.md"} {
		if _, ok := Read(bad); ok {
			t.Errorf("Read(%q) found something", bad)
		}
	}
	if Names("nope") != nil {
		t.Error("an unknown phase has names")
	}
	names := Names("act")
	names[0] = "changed"
	if Names("act")[0] == "changed" {
		t.Error("Names exposes the catalogue to changes")
	}
}

func forEach(t *testing.T, fn func(t *testing.T, ref, text string)) {
	for _, phase := range Phases {
		for _, name := range Names(phase) {
			ref := Ref(phase, name)
			text, ok := Read(ref)
			if !ok {
				t.Errorf("%s is catalogued but not embedded", ref)
				continue
			}
			t.Run(path.Join(phase, name), func(t *testing.T) { fn(t, ref, text) })
		}
	}
}
