package realcli

import (
	"reflect"
	"testing"
)

func TestParseInstalled(t *testing.T) {
	out := "claude\tok\t/c/claude\ncodex\tunreachable\tnpm could not reach the registry: ENOTFOUND\ngemini\tfailed\tnpm install failed\n"
	got := parseInstalled(out, []string{"claude", "codex", "gemini", "copilot"})
	want := map[string]Installed{
		"claude":  {Name: "claude", Binary: "/c/claude"},
		"codex":   {Name: "codex", Unreachable: true, Why: "npm could not reach the registry: ENOTFOUND"},
		"gemini":  {Name: "gemini", Why: "npm install failed"},
		"copilot": {Name: "copilot", Why: "install.sh said nothing of copilot"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
}

func TestEveryCLIHasASetup(t *testing.T) {
	for _, name := range Names {
		env, err := Environment([]string{"HOME=/root", "PATH=/bin", "KEEP=1"}, Installed{Name: name, Binary: "/clis/bin/" + name}, t.TempDir(), "/ws", "http://127.0.0.1:1")
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		seen := map[string]int{}
		for _, kv := range env {
			seen[kv]++
		}
		if seen["HOME=/root"] != 0 || seen["KEEP=1"] != 1 || seen["PWD=/ws"] != 1 {
			t.Errorf("%s: %v", name, env)
		}
	}
}
