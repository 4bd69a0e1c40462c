package sandbox

import (
	"encoding/json"
	"errors"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"rooda/host/sandbox/confine"
)

// TestBeside: rooda runs the rooda-sandbox beside its executable only
// when no one but its owner (rooda's user or root) may change it.
func TestBeside(t *testing.T) {
	dir := t.TempDir()
	self := filepath.Join(dir, "rooda")
	if _, err := Beside(self); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("none beside: %v, want fs.ErrNotExist", err)
	}
	path := filepath.Join(dir, Program)
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if got, err := Beside(self); err != nil || got != path {
		t.Errorf("mode 755: %q, %v; want %q", got, err, path)
	}
	for mode, why := range map[fs.FileMode]string{0o777: "written by others", 0o775: "written by others", 0o644: "not an executable"} {
		if err := os.Chmod(path, mode); err != nil {
			t.Fatal(err)
		}
		if got, err := Beside(self); err == nil || !strings.Contains(err.Error(), why) {
			t.Errorf("mode %v: %q, %v; want an error saying %q", mode, got, err, why)
		}
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(path, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := Beside(self); err == nil {
		t.Error("a directory taken for the trampoline")
	}
}

// TestBesideRefusesAnotherUsers: a rooda-sandbox that belongs to
// another user than rooda's (or root) is not run. It needs root, to give
// the file away.
func TestBesideRefusesAnotherUsers(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("SKIPPED: giving a file to another user needs root")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, Program)
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(path, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	if got, err := Beside(filepath.Join(dir, "rooda")); err == nil || !strings.Contains(err.Error(), "another user") {
		t.Errorf("another user's: %q, %v", got, err)
	}
}

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
