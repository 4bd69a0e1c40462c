package realcli

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
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

// fakeNPM is an npm that logs its calls and, told by FAKE_NPM, installs the
// packages' binaries, fails as without a network, or fails otherwise. Its
// view names 9.9.9 as every package's newest version.
const fakeNPM = `#!/bin/sh
echo "$*" >> "$FAKE_NPM_LOG"
case "$FAKE_NPM" in
unreachable) echo "npm error code ENOTFOUND" >&2; exit 1 ;;
broken) echo "npm error code ETARGET" >&2; exit 1 ;;
esac
if [ "$1" = view ]; then echo 9.9.9; exit 0; fi
prefix=$3
mkdir -p "$prefix/node_modules/.bin"
name=$(basename "$prefix"); name=${name%@*}
printf '#!/bin/sh\n' > "$prefix/node_modules/.bin/$name"
chmod +x "$prefix/node_modules/.bin/$name"
`

// fakeNPMOnPath puts fakeNPM first on PATH with a cache of its own, and
// returns the environment for a mode of it and the file of its calls.
func fakeNPMOnPath(t *testing.T) (env func(mode string) []string, cache, log string) {
	bin, cache, log := t.TempDir(), t.TempDir(), filepath.Join(t.TempDir(), "npm.log")
	if err := os.WriteFile(filepath.Join(bin, "npm"), []byte(fakeNPM), 0o755); err != nil {
		t.Fatal(err)
	}
	return func(mode string) []string {
		return append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"), "XDG_CACHE_HOME="+cache,
			"FAKE_NPM="+mode, "FAKE_NPM_LOG="+log)
	}, cache, log
}

func TestInstallScript(t *testing.T) {
	env, cache, log := fakeNPMOnPath(t)
	calls := func() int {
		data, _ := os.ReadFile(log)
		return strings.Count(string(data), "\n")
	}

	got, err := install(env("unreachable"), false, "claude")
	if err != nil || !got["claude"].Unreachable || !strings.Contains(got["claude"].Why, "ENOTFOUND") {
		t.Errorf("unreachable: %+v, %v", got, err)
	}
	got, err = install(env("broken"), false, "gemini")
	if c := got["gemini"]; err != nil || c.Unreachable || c.Binary != "" || !strings.Contains(c.Why, "ETARGET") {
		t.Errorf("broken: %+v, %v", got, err)
	}

	got, err = install(env("ok"), false, "claude", "codex", "nothing")
	want := filepath.Join(cache, "rooda", "clis", "claude@2.1.332", "node_modules", ".bin", "claude")
	if err != nil || got["claude"].Binary != want || got["codex"].Binary == "" || got["nothing"].Why != "no pinned version of nothing" {
		t.Errorf("ok: %+v, %v", got, err)
	}
	data, _ := os.ReadFile(log)
	if !strings.Contains(string(data), "@openai/codex@0.171.0 @openai/codex-linux-") {
		t.Errorf("codex's platform package was not named: %s", data)
	}
	if strings.Contains(string(data), "view") {
		t.Errorf("the pins were installed after asking the registry for the newest: %s", data)
	}
	before := calls()
	if got, err = install(env("unreachable"), false, "claude", "codex"); err != nil || got["claude"].Binary != want || calls() != before {
		t.Errorf("installed again, or not found in the cache without a network: %+v, %v, %d npm calls", got, err, calls()-before)
	}
}

// TestInstallScriptLatest: --latest asks the registry for each CLI's newest
// version and installs that, beside the pins, in the same layout.
func TestInstallScriptLatest(t *testing.T) {
	env, cache, log := fakeNPMOnPath(t)
	got, err := install(env("ok"), true, "claude", "codex")
	want := filepath.Join(cache, "rooda", "clis", "claude@9.9.9", "node_modules", ".bin", "claude")
	if err != nil || got["claude"].Binary != want || !strings.Contains(got["codex"].Binary, "codex@9.9.9") {
		t.Errorf("latest: %+v, %v", got, err)
	}
	data, _ := os.ReadFile(log)
	for _, call := range []string{"view @anthropic-ai/claude-code version", "@anthropic-ai/claude-code@9.9.9",
		"view @openai/codex version", "@openai/codex@9.9.9 @openai/codex-linux-"} {
		if !strings.Contains(string(data), call) {
			t.Errorf("npm was not called with %q: %s", call, data)
		}
	}

	got, err = install(env("unreachable"), true, "gemini")
	if c := got["gemini"]; err != nil || !c.Unreachable || !strings.Contains(c.Why, "@google/gemini-cli@latest") {
		t.Errorf("unreachable: %+v, %v", got, err)
	}
}
