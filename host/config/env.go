package config

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"rooda/host/prompt"
	"rooda/host/suggest"
)

// EnvName is the environment variable of a loop key: ROODA_LOOP_<KEY>.
func EnvName(key string) string { return loopPrefix + strings.ToUpper(key) }

// loopPrefix begins the name of every variable that sets a loop key.
const loopPrefix = "ROODA_LOOP_"

// fromEnv reads the environment tier: every loop key from ROODA_LOOP_<KEY>
// (and the table's synonyms from seed 002). An empty variable is unset; a malformed one is
// an error naming it, never ignored, and so is a ROODA_LOOP_ variable that
// sets nothing (a typo), when environ can list the variables.
func fromEnv(lookup func(string) (string, bool), environ func() []string) (*Config, error) {
	cfg := newConfig()
	var problems prompt.Problems
	if environ != nil {
		problems.Add(unknownLoopVariables(environ(), keysOf(cfg.Loop.fields(true))))
	}
	for _, f := range cfg.Loop.fields(true) {
		name, value, err := envValue(lookup, rowOf(f.key))
		switch {
		case err != nil:
			problems = append(problems, err)
		case name != "":
			if err := f.assign(value, Source{Env, name}, 0); err != nil {
				problems = append(problems, fmt.Errorf("%s %w", name, err))
			}
		}
	}
	if len(problems) > 0 {
		return nil, problems
	}
	return cfg, nil
}

// envValue finds the variable that sets row, if any. When both a seed name
// and its ROODA_LOOP_ form are set, they must agree: rooda will not guess
// which one was meant.
func envValue(lookup func(string) (string, bool), row *Setting) (name, value string, err error) {
	for _, n := range row.EnvNames() {
		v, ok := lookup(n)
		if !ok || v == "" {
			continue
		}
		if name != "" && v != value {
			return "", "", fmt.Errorf("%s=%q and %s=%q disagree; unset one of them", name, value, n, v)
		}
		name, value = n, v
	}
	return name, value, nil
}

// unknownLoopVariables reports each ROODA_LOOP_ variable in environ that is
// set but names none of keys, as a file's unknown key is reported. Other
// ROODA_ variables are left alone: rooda sets some for its agent
// (ROODA_ITERATION…), which a rooda the agent runs sees. Sorted, so that
// the messages come in the same order every time.
func unknownLoopVariables(environ []string, keys []string) error {
	var problems prompt.Problems
	for _, kv := range slices.Sorted(slices.Values(environ)) {
		name, value, _ := strings.Cut(kv, "=")
		key, ok := strings.CutPrefix(name, loopPrefix)
		if !ok || value == "" || slices.ContainsFunc(keys, func(k string) bool { return EnvName(k) == name }) {
			continue
		}
		msg := fmt.Sprintf("%s is not a rooda setting", name)
		if near := nearestKeys(strings.ToLower(key), keys); len(near) > 0 {
			msg += fmt.Sprintf(" (did you mean %s?)", orList(near))
		} else {
			msg += fmt.Sprintf(" (%s<KEY> sets a loop key: %s)", loopPrefix, strings.Join(keys, ", "))
		}
		problems = append(problems, errors.New(msg))
	}
	if len(problems) > 0 {
		return problems
	}
	return nil
}

// nearestKeys are the keys a misspelt one may mean: those that hold it
// whole (max_iterations: default_max_iterations), else the closest. Two
// letters are held by too many keys to say anything.
func nearestKeys(typed string, keys []string) []string {
	var holding []string
	for _, k := range keys {
		if len(typed) >= 3 && strings.Contains(k, typed) {
			holding = append(holding, k)
		}
	}
	if len(holding) > 0 {
		return holding
	}
	if near := suggest.Closest(typed, keys); near != "" {
		return []string{near}
	}
	return nil
}

// orList names the variables of keys: "A", "A or B", "A, B or C".
func orList(keys []string) string {
	names := make([]string, len(keys))
	for i, k := range keys {
		names[i] = EnvName(k)
	}
	return suggest.OneOf(names)
}
