package config

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestLibraries: a library's directory is taken from the file that names
// it; a higher tier replaces a name; bad names and values are errors.
func TestLibraries(t *testing.T) {
	cfg, err := Decode([]byte("libraries:\n  team: ../shared/star\n  abs: /opt/lib\n"), Source{Workspace, "./rooda-config.yml"}, "/work/proj")
	if err != nil {
		t.Fatal(err)
	}
	if got := cfg.Libraries["team"]; got.V.Dir != filepath.Clean("/work/shared/star") || got.Line != 2 || got.V.LockDir != "/work/proj" {
		t.Errorf("team: %+v", got)
	}
	if got := cfg.Libraries["abs"].V.Dir; got != "/opt/lib" {
		t.Errorf("abs: %q", got)
	}
	cfg, err = Decode([]byte("libraries:\n  team: {git: file:///srv/team.git, ref: v1, path: star/}\n  tip: {git: https://example.org/x.git}\n"), Source{Workspace, "./rooda-config.yml"}, "/w")
	if err != nil {
		t.Fatal(err)
	}
	if got := cfg.Libraries["team"].V; got != (Library{Git: "file:///srv/team.git", Ref: "v1", Path: "star", LockDir: "/w"}) {
		t.Errorf("git library: %+v", got)
	}
	if got := cfg.Libraries["tip"].V.Ref; got != "HEAD" {
		t.Errorf("default ref %q", got)
	}
	cfg, err = Decode([]byte("libraries:\n  near: {git: ../team-repo}\n  scp: {git: git@example.org:team/x.git}\n"), Source{Workspace, "./rooda-config.yml"}, "/w/proj")
	if err != nil || cfg.Libraries["near"].V.Git != "/w/team-repo" || cfg.Libraries["scp"].V.Git != "git@example.org:team/x.git" {
		t.Errorf("local and scp sources: %+v, %v", cfg.Libraries, err)
	}
	for _, bad := range []string{"libraries:\n  rooda: x\n", "libraries:\n  a b: x\n", "libraries:\n  team:\n", "libraries: [x]\n",
		"libraries:\n  team: {ref: v1}\n", "libraries:\n  team: {git: x, path: ../up}\n", "libraries:\n  team: {git: x, tag: v1}\n"} {
		if _, err := Decode([]byte(bad), Source{Workspace, "./rooda-config.yml"}, "/w"); err == nil || !strings.Contains(err.Error(), "librar") {
			t.Errorf("%q: %v", bad, err)
		}
	}
}
