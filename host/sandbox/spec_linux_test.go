package sandbox

import (
	"encoding/json"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"

	"rooda/host/sandbox/confine"
)

// TestSpecReachesTheTrampoline: every rule of a Spec reaches the
// trampoline (confine.Spec) under its own name and value through Wrap's
// environment, and only the fields kept for the record stay behind.
// A field added to Spec and not to confine.Spec fails here.
func TestSpecReachesTheTrampoline(t *testing.T) {
	spec := Spec{Mode: Workspace, Write: []string{"/w"}, Ports: []int{443}, Hide: []string{"/h"}, Empty: "/e",
		ABI: 6, NotHidden: "why", ReadOnly: []string{"/r"}, Pinned: []string{"/p"},
		Branch:     &Branch{Ref: "refs/heads/b", Head: "abc", CommonDir: "/c", Private: "/v"},
		NotCovered: "why", Outside: 1, OutsideNet: 2,
		Net: &Net{Handoff: 3, Hosts: []string{"x"}, Loopback: []string{"127.0.0.1:80"}, Refused: []Refusal{{Host: "y", Port: 1, Count: 1}}}}
	assertAllSet(t, reflect.ValueOf(spec), "Spec")
	_, env, err := Wrap("/t", spec, []string{"agent"})
	if err != nil {
		t.Fatal(err)
	}
	sent, ok := strings.CutPrefix(env, confine.SpecVar+"=")
	if !ok {
		t.Fatalf("environment %q", env)
	}
	var full, applied map[string]any
	data, _ := json.Marshal(spec)
	must(t, json.Unmarshal(data, &full))
	must(t, json.Unmarshal([]byte(sent), &applied))
	recordOnly := []string{"abi", "not_hidden", "not_covered"}
	for _, name := range recordOnly {
		delete(full, name)
	}
	netFull := full["net"].(map[string]any)
	delete(netFull, "hosts")
	delete(netFull, "refused")
	if !reflect.DeepEqual(full, applied) {
		t.Errorf("the trampoline's Spec differs from rooda's beyond %v:\nrooda's %v\nsent    %v", recordOnly, slices.Sorted(maps.Keys(full)), slices.Sorted(maps.Keys(applied)))
	}
}

// assertAllSet fails on a field of v left at its zero value, for the test
// above to cover every field.
func assertAllSet(t *testing.T, v reflect.Value, name string) {
	t.Helper()
	switch v.Kind() {
	case reflect.Pointer:
		assertAllSet(t, v.Elem(), name)
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Field(i).IsZero() {
				t.Errorf("%s.%s is not set", name, v.Type().Field(i).Name)
			}
			assertAllSet(t, v.Field(i), name+"."+v.Type().Field(i).Name)
		}
	}
}
