// Package realcli installs the real agent CLIs at pinned versions and
// points each at a local model server (internal/modelserver), for the
// end-to-end suite that runs rooda's built-in aliases against them.
//
// install.sh installs from the npm registry into a cache of its own
// (${XDG_CACHE_HOME:-~/.cache}/rooda/clis/NAME@VERSION), never globally;
// [Install] runs it and tells, for each CLI, its binary or why there is
// none. [Setups] is the one table of what each CLI needs to talk to the
// server: environment variables and configuration files under a temporary
// HOME, so that no user configuration is read or written.
package realcli

import (
	_ "embed"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"rooda/internal/modelserver"
)

//go:embed install.sh
var installScript string

// Names are the CLIs the suite runs, in the order it runs them.
var Names = []string{"claude", "codex", "gemini", "opencode", "copilot"}

// An Installed CLI is one that install.sh tried to install.
type Installed struct {
	Name string
	// Binary is its executable, when it installed.
	Binary string
	// Unreachable is set when the npm registry could not be reached: the
	// one reason the suite skips a CLI rather than failing.
	Unreachable bool
	// Why says what went wrong, when Binary is empty.
	Why string
}

// Install installs the named CLIs (all of Names by default) at their
// pinned versions where they are not installed already and reports on
// each. An error means the script itself could not run.
func Install(names ...string) (map[string]Installed, error) {
	return install(os.Environ(), false, names...)
}

// InstallLatest is [Install] at each CLI's newest version on the npm
// registry instead of its pin: what the suite runs against before a pin
// moves.
func InstallLatest(names ...string) (map[string]Installed, error) {
	return install(os.Environ(), true, names...)
}

// install runs install.sh in the environment env, with --latest if latest.
func install(env []string, latest bool, names ...string) (map[string]Installed, error) {
	if len(names) == 0 {
		names = Names
	}
	args := []string{"-c", installScript, "install.sh"}
	if latest {
		args = append(args, "--latest")
	}
	cmd := exec.Command("bash", append(args, names...)...)
	cmd.Env, cmd.Stderr = env, os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("install.sh: %w", err)
	}
	return parseInstalled(string(out), names), nil
}

// parseInstalled reads install.sh's lines, NAME, status and a path or a
// reason, separated by tabs. A CLI it said nothing of failed.
func parseInstalled(out string, names []string) map[string]Installed {
	got := map[string]Installed{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		fields := strings.SplitN(line, "\t", 3)
		if len(fields) != 3 {
			continue
		}
		c := Installed{Name: fields[0]}
		switch fields[1] {
		case "ok":
			c.Binary = fields[2]
		case "unreachable":
			c.Unreachable, c.Why = true, fields[2]
		default:
			c.Why = fields[2]
		}
		got[c.Name] = c
	}
	for _, name := range names {
		if _, ok := got[name]; !ok {
			got[name] = Installed{Name: name, Why: "install.sh said nothing of " + name}
		}
	}
	return got
}

// A Setup is what one CLI needs to run against the model server.
type Setup struct {
	// API is the protocol it speaks to the server.
	API modelserver.API
	// Configure writes the CLI's configuration files under home and
	// returns its environment variables, given the server's base URL.
	Configure func(home, url string) ([]string, error)
}

// Setups is the table of the CLIs' setups, by name. (The facts are in
// shared/notes/real-clis.md.)
var Setups = map[string]Setup{
	"claude": {modelserver.Anthropic, func(home, url string) ([]string, error) {
		return []string{
			"ANTHROPIC_BASE_URL=" + url,
			"ANTHROPIC_API_KEY=modelserver",
			"IS_SANDBOX=1", // --dangerously-skip-permissions refuses root without it
			"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		}, nil
	}},
	"codex": {modelserver.Responses, func(home, url string) ([]string, error) {
		dir := filepath.Join(home, ".codex")
		config := fmt.Sprintf(`model = "modelserver"
model_provider = "local"

[model_providers.local]
name = "local"
base_url = "%s/v1"
env_key = "MODELSERVER_API_KEY"
wire_api = "responses"
`, url)
		return []string{"CODEX_HOME=" + dir, "MODELSERVER_API_KEY=modelserver"},
			writeFile(filepath.Join(dir, "config.toml"), config)
	}},
	"gemini": {modelserver.Gemini, func(home, url string) ([]string, error) {
		return []string{
				"GOOGLE_GEMINI_BASE_URL=" + url,
				"GEMINI_API_KEY=modelserver",
				// The alias lacks --skip-trust: without this, gemini exits 55
				// in a folder it has not been told to trust.
				"GEMINI_CLI_TRUST_WORKSPACE=true",
			}, writeFile(filepath.Join(home, ".gemini", "settings.json"),
				`{"security":{"auth":{"selectedType":"gemini-api-key"}}}`)
	}},
	"opencode": {modelserver.Chat, func(home, url string) ([]string, error) {
		path := filepath.Join(home, "opencode.json")
		config := fmt.Sprintf(`{
  "$schema": "https://opencode.ai/config.json",
  "provider": {"local": {"npm": "@ai-sdk/openai-compatible", "name": "local",
    "options": {"baseURL": "%s/v1", "apiKey": "modelserver"},
    "models": {"modelserver": {"name": "modelserver"}}}},
  "model": "local/modelserver"
}
`, url)
		return []string{"OPENCODE_CONFIG=" + path, "OPENCODE_DISABLE_MODELS_FETCH=1"}, writeFile(path, config)
	}},
	"copilot": {modelserver.Chat, func(home, url string) ([]string, error) {
		return []string{
			"COPILOT_PROVIDER_BASE_URL=" + url + "/v1",
			"COPILOT_PROVIDER_API_KEY=modelserver",
			"COPILOT_MODEL=modelserver",
			"COPILOT_OFFLINE=true",
		}, nil
	}},
}

// Environment is the environment a CLI runs in against the server at url:
// the given base environment, with HOME, the XDG directories and PWD
// replaced (opencode works in $PWD, not in the directory it was started
// in), the CLI's binary first on PATH, and the CLI's own variables.
func Environment(base []string, c Installed, home, workspace, url string) ([]string, error) {
	setup, ok := Setups[c.Name]
	if !ok {
		return nil, fmt.Errorf("no setup for %s", c.Name)
	}
	own, err := setup.Configure(home, url)
	if err != nil {
		return nil, err
	}
	set := map[string]string{
		"HOME":            home,
		"XDG_CONFIG_HOME": filepath.Join(home, ".config"),
		"XDG_DATA_HOME":   filepath.Join(home, ".local", "share"),
		"XDG_STATE_HOME":  filepath.Join(home, ".local", "state"),
		"XDG_CACHE_HOME":  filepath.Join(home, ".cache"),
		"PWD":             workspace,
		"PATH":            filepath.Dir(c.Binary) + string(os.PathListSeparator) + os.Getenv("PATH"),
	}
	var env []string
	for _, kv := range base {
		name, _, _ := strings.Cut(kv, "=")
		if _, replaced := set[name]; !replaced {
			env = append(env, kv)
		}
	}
	for name, value := range set {
		env = append(env, name+"="+value)
	}
	return append(env, own...), nil
}

func writeFile(path, content string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, []byte(content), 0o644)
}
