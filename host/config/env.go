package config

import (
	"fmt"
	"strings"

	"rooda/host/prompt"
)

// seedNames are the shorter variables seed 002 names; each is a synonym of
// its ROODA_LOOP_ form.
var seedNames = map[string]string{
	"log_level":      "ROODA_LOG_LEVEL",
	"show_ai_output": "ROODA_SHOW_AI_OUTPUT",
}

// EnvName is the environment variable of a loop key: ROODA_LOOP_<KEY>.
func EnvName(key string) string { return "ROODA_LOOP_" + strings.ToUpper(key) }

// fromEnv reads the environment tier: every loop key from ROODA_LOOP_<KEY>
// (and the seed's synonyms). An empty variable is unset; a malformed one is
// an error naming it, never ignored.
func fromEnv(lookup func(string) (string, bool)) (*Config, error) {
	cfg := newConfig()
	var problems prompt.Problems
	for _, f := range cfg.Loop.fields() {
		name, value, err := envValue(lookup, f.key)
		switch {
		case err != nil:
			problems = append(problems, err)
		case name != "":
			if err := f.assign(value, Source{Env, name}, 0); err != nil {
				problems = append(problems, fmt.Errorf("%s %v", name, err))
			}
		}
	}
	if len(problems) > 0 {
		return nil, problems
	}
	return cfg, nil
}

// envValue finds the variable that sets key, if any. When both a seed name
// and its ROODA_LOOP_ form are set, they must agree: rooda will not guess
// which one was meant.
func envValue(lookup func(string) (string, bool), key string) (name, value string, err error) {
	for _, n := range []string{seedNames[key], EnvName(key)} {
		v, ok := lookup(n)
		if n == "" || !ok || v == "" {
			continue
		}
		if name != "" && v != value {
			return "", "", fmt.Errorf("%s=%q and %s=%q disagree; unset one of them", name, value, n, v)
		}
		name, value = n, v
	}
	return name, value, nil
}
