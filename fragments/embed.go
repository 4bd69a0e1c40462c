// Package fragments embeds rooda's library of prompt fragments: short
// markdown instructions grouped by OODA phase, which procedures reference as
// builtin:fragments/<phase>/<name>.md.
//
// The catalogue below fixes the order in which each phase's fragments are
// listed (by `rooda fragments` and in "did you mean" errors): the order an
// agent would use them in, not the alphabet. A test keeps it in step with
// the files.
package fragments

import (
	"embed"
	"io/fs"
	"path"
	"strings"
)

// Prefix marks a fragment path as a reference into this library.
const Prefix = "builtin:"

// dir is the directory every builtin path names after the prefix.
const dir = "fragments/"

//go:embed observe/*.md orient/*.md decide/*.md act/*.md
var files embed.FS

// Phases are the OODA phases in loop order; each is a directory here.
var Phases = []string{"observe", "orient", "decide", "act"}

var catalogue = map[string][]string{
	"observe": {
		"read_agents_md.md",
		"scan_repo_structure.md",
		"detect_build_system.md",
		"detect_work_tracking.md",
		"verify_commands.md",
		"query_work_tracking.md",
		"read_specs.md",
		"read_impl.md",
		"read_task_input.md",
		"read_draft_plan.md",
		"read_task_details.md",
		"run_tests.md",
		"run_lints.md",
	},
	"orient": {
		"understand_task_requirements.md",
		"understand_feature_requirements.md",
		"understand_bug_root_cause.md",
		"understand_refactor_request.md",
		"understand_chore_request.md",
		"search_codebase.md",
		"identify_affected_files.md",
		"identify_affected_code.md",
		"identify_affected_specs.md",
		"identify_code_smells.md",
		"identify_complexity_issues.md",
		"identify_duplication.md",
		"identify_structural_issues.md",
		"identify_maintenance_needs.md",
		"identify_spec_deficiencies.md",
		"identify_specified_but_not_implemented.md",
		"identify_implemented_but_not_specified.md",
		"compare_detected_vs_documented.md",
		"compare_documented_vs_actual.md",
		"identify_drift.md",
		"evaluate_against_quality_criteria.md",
		"parse_plan_tasks.md",
		"map_to_work_tracking_format.md",
	},
	"decide": {
		"pick_task.md",
		"plan_implementation_approach.md",
		"break_down_into_tasks.md",
		"prioritize_tasks.md",
		"identify_issues.md",
		"prioritize_findings.md",
		"prioritize_gaps_by_impact.md",
		"categorize_drift_severity.md",
		"determine_sections_to_update.md",
		"determine_import_strategy.md",
		"check_if_blocked.md",
		"decide_signal.md",
	},
	"act": {
		"modify_files.md",
		"run_tests.md",
		"commit_changes.md",
		"update_work_tracking.md",
		"write_agents_md.md",
		"write_audit_report.md",
		"write_gap_report.md",
		"write_draft_plan.md",
		"create_work_items.md",
		"update_draft_plan_status.md",
		"emit_signal.md",
		"emit_success.md",
		"emit_failure.md",
	},
}

// Names returns the file names of a phase's fragments in catalogue order,
// or nil for an unknown phase.
func Names(phase string) []string {
	return append([]string(nil), catalogue[phase]...)
}

// Ref returns the builtin reference of a fragment: builtin:fragments/<phase>/<name>.
func Ref(phase, name string) string {
	return Prefix + dir + phase + "/" + name
}

// Read returns the text a builtin reference names, such as
// "builtin:fragments/observe/read_specs.md". ok is false when the reference
// names nothing in the library.
func Read(ref string) (text string, ok bool) {
	name, ok := strings.CutPrefix(ref, Prefix+dir)
	if !ok || !fs.ValidPath(name) || path.Ext(name) != ".md" {
		return "", false
	}
	data, err := files.ReadFile(name)
	if err != nil {
		return "", false
	}
	return string(data), true
}

// Files returns the embedded library, rooted at the phase directories.
func Files() fs.FS { return files }
