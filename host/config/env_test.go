package config

import (
	"slices"
	"strings"
	"testing"
)

// TestLoopVariableTypos: each misspelt ROODA_LOOP_ variable is answered
// with the key a person meant, whether the typo drops a letter inside a
// word, doubles one, joins or swaps the words, or leaves a word out.
func TestLoopVariableTypos(t *testing.T) {
	keys := keysOf(newConfig().Loop.fields(true))
	for typed, want := range map[string][]string{
		"MAX_ITERATION":          {"default_max_iterations"},
		"MAX_ITERATON":           {"default_max_iterations"},
		"MAX_ITERATIONS_DEFAULT": {"default_max_iterations"},
		"MIN_ITERATON":           {"min_iterations"},
		"ITERATION_TIMOUT":       {"iteration_timeout"},
		"ITERATON_TIMEOUT":       {"iteration_timeout"},
		"TIMEOUT_ITERATION":      {"iteration_timeout"},
		"FAILURE_THRESHHOLD":     {"failure_threshold"},
		"FAILURE_TRESHOLD":       {"failure_threshold"},
		"MAX_FAILURES":           {"failure_threshold"},
		"LOGLEVEL":               {"log_level"},
		"LOG_LVL":                {"log_level"},
		"LOG_FORMATT":            {"log_format"},
		"KEEP_RUN":               {"keep_runs"},
		"KEEPRUNS":               {"keep_runs"},
		"RUN_DIR":                {"runs_dir"},
		"SHOW_OUTPUT":            {"show_ai_output"},
		"MAX_BUFFER":             {"max_output_buffer"},
		"AICMD":                  {"ai_cmd"},
		"AI_CMD_ALIASES":         {"ai_cmd_alias"},
		"ITERATIONMODE":          {"iteration_mode"},
		"DIGESTS":                {"digest"},
	} {
		if got := nearestKeys(strings.ToLower(typed), keys); !slices.Equal(got, want) {
			t.Errorf("ROODA_LOOP_%s: did you mean %v, want %v", typed, got, want)
		}
	}
}
