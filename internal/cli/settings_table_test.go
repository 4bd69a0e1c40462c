package cli

import (
	"slices"
	"strings"
	"testing"

	"rooda/builtins"
	"rooda/builtins/reference"
	"rooda/host"
	"rooda/host/config"
)

// defineTestWidgets adds a setting to the table, here and nowhere else,
// and takes it out when the test ends.
func defineTestWidgets(t *testing.T) {
	t.Helper()
	config.Define(config.Setting{
		Key: "test_widgets",
		Doc: "how many widgets a test makes",
		Flags: []config.FlagDef{{Name: "test-widgets", Category: "Loop",
			Usage: "make `N` widgets"}},
		Keyword: &config.Keyword{Name: "test_widgets", Type: "int", Doc: "make this many widgets"},
	}, config.AtLeast(1))
	t.Cleanup(func() { config.Undefine("test_widgets") })
}

// TestASettingOfTheTableIsEverywhere: a setting defined only in this file
// is a flag (in the help, and it sets the value), an environment variable,
// a key of a configuration file, a keyword of iterate() in a dry run,
// a line of rooda info with its source, and a row of the generated docs.
// Not parallel: the table is the package's.
func TestASettingOfTheTableIsEverywhere(t *testing.T) {
	defineTestWidgets(t)
	dir := t.TempDir()
	t.Chdir(dir)
	t.Setenv("ROODA_CONFIG_HOME", t.TempDir())
	writeFile(t, "rooda-config.yml", "loop:\n  test_widgets: 5\nprocedures:\n  mine:\n    test_widgets: 6\n    act: [{content: Work.}]\n")
	writeFile(t, "w.star", "iterate(compose(\"p\", act = [fragment(content = \"Work.\")]), test_widgets = 2)\n")

	has := func(name string, args []string, want ...string) {
		t.Helper()
		stdout, stderr, code := rooda(args...)
		for _, w := range want {
			if !strings.Contains(stdout+stderr, w) {
				t.Errorf("%s: rooda %s (exit %d) does not say %q:\n%s%s", name, strings.Join(args, " "), code, w, stdout, stderr)
			}
		}
	}
	has("help", []string{"run", "--help"}, "--test-widgets N", "make N widgets")
	has("config file", []string{"info", "build"}, "Test Widgets: 5 (workspace: ./rooda-config.yml)")
	has("procedure", []string{"info", "mine"}, "Test Widgets: 6 (workspace: ./rooda-config.yml)")
	has("config show", []string{"config", "show"}, "test_widgets: 5", "test_widgets: 6")
	has("flag", []string{"info", "mine", "--test-widgets", "3"}, "Test Widgets: 3 (cli: --test-widgets)")
	has("bad flag", []string{"info", "mine", "--test-widgets", "0"}, "--test-widgets must be >= 1, got 0")
	has("iterate()", []string{"script", "run", "w.star", "--dry-run", "--ai-cmd", "sh -c cat"}, "Test Widgets: 2 (script: w.star:1)")
	has("signature", []string{"script", "check", "w.star"}, "w.star: ok")

	t.Setenv("ROODA_LOOP_TEST_WIDGETS", "4")
	has("environment", []string{"info", "build"}, "Test Widgets: 4 (env: ROODA_LOOP_TEST_WIDGETS)")

	if docs := config.Reference(); !strings.Contains(docs, "| `test_widgets` | per procedure | an integer >= 1 |") {
		t.Errorf("docs/settings.md would not list test_widgets:\n%s", docs)
	}
	if docs := reference.Markdown(reference.Entries(nil)); !strings.Contains(docs, "test_widgets") {
		t.Error("docs/builtins.md would not list iterate(test_widgets=…)")
	}
	if !slices.ContainsFunc(builtins.Signatures(nil)["iterate"], func(p host.Param) bool { return p.Name == "test_widgets" }) {
		t.Error("rooda script check does not know iterate(test_widgets=…)")
	}
}
