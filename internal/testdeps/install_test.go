package testdeps

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// fakeAptGet stands for apt-get on the PATH install.sh is given. Its
// package lists are fresh when $APT/fresh exists; "update" makes them so
// when $APT/online exists and fails as an unreachable archive otherwise.
// "install" of packages, all of them or none, succeeds on fresh lists
// unless $APT/lacks-PACKAGE exists, and puts an executable named after
// each package in its own directory, which is on PATH. Each call is a line
// of $APT/calls, without its -o options.
const fakeAptGet = `#!/bin/bash
args=()
while (($#)); do
	if [[ $1 == -o ]]; then shift 2; else args+=("$1"); shift; fi
done
echo "${args[*]}" >>"$APT/calls"
case ${args[0]} in
update)
	if [[ -e $APT/online ]]; then : >"$APT/fresh"; exit 0; fi
	echo "E: Failed to fetch http://deb.debian.org/debian/dists/bookworm/InRelease  Temporary failure resolving 'deb.debian.org'"
	exit 100 ;;
install)
	packages=("${args[@]:3}") # after install -y --no-install-recommends
	for p in "${packages[@]}"; do
		if [[ ! -e $APT/fresh || -e $APT/lacks-$p ]]; then echo "E: Unable to locate package $p"; exit 100; fi
	done
	for p in "${packages[@]}"; do
		echo '#!/bin/sh' >"${0%/*}/$p"
		/bin/chmod +x "${0%/*}/$p"
	done ;;
esac
`

// fakeSudo stands for sudo: install.sh goes through "sudo -n" when it is
// not root, and this sudo runs the command as it is.
const fakeSudo = `#!/bin/bash
[[ $1 == -n ]] && shift
"$@"
`

// archive is the state of the fake apt-get's archive for one run.
type archive struct {
	fresh, online bool
	lacks         []string // packages it cannot find
	present       []string // the tools installed before the run
	noAptGet      bool
}

// runInstall runs install.sh with a PATH of the fake apt-get, the fake
// sudo and the few programs the script needs, and returns its output, its
// exit code and the calls of apt-get.
func runInstall(t *testing.T, a archive) (string, int, []string) {
	t.Helper()
	state, bin := t.TempDir(), t.TempDir()
	for _, name := range []string{"mktemp", "env"} {
		path, err := exec.LookPath(name)
		if err != nil {
			t.Skipf("NOT TESTED: %s is not installed", name)
		}
		if err := os.Symlink(path, filepath.Join(bin, name)); err != nil {
			t.Fatal(err)
		}
	}
	files := map[string]string{filepath.Join(bin, "sudo"): fakeSudo}
	if !a.noAptGet {
		files[filepath.Join(bin, "apt-get")] = fakeAptGet
	}
	for _, tool := range a.present {
		files[filepath.Join(bin, tool)] = "#!/bin/sh\n"
	}
	flags := map[string]bool{"fresh": a.fresh, "online": a.online}
	for _, p := range a.lacks {
		flags["lacks-"+p] = true
	}
	for name, set := range flags {
		if set {
			files[filepath.Join(state, name)] = ""
		}
	}
	for path, content := range files {
		if err := os.WriteFile(path, []byte(content), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command("bash", "install.sh")
	cmd.Env = []string{"PATH=" + bin, "APT=" + state, "TMPDIR=" + t.TempDir()}
	out, err := cmd.CombinedOutput()
	code := 0
	if exit, ok := err.(*exec.ExitError); ok {
		code = exit.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	calls, _ := os.ReadFile(filepath.Join(state, "calls"))
	return string(out), code, strings.Split(strings.TrimSuffix(string(calls), "\n"), "\n")
}

const installAll = "install -y --no-install-recommends chromium zsh fish mypy"

func TestInstallsWhatIsMissing(t *testing.T) {
	for _, c := range []struct {
		name    string
		archive archive
		calls   []string
		output  []string // regular expressions, each matching a line
	}{
		{"the lists are fresh: no update", archive{fresh: true},
			[]string{installAll},
			[]string{`^testdeps: installing chromium zsh fish mypy with apt-get \(log: .*\)$`, `^testdeps: installed chromium zsh fish mypy in \d+ s$`}},
		{"stale lists are updated once", archive{online: true},
			[]string{installAll, "update", installAll},
			[]string{`^testdeps: installing`, `^testdeps: installed chromium zsh fish mypy in \d+ s$`}},
		{"only what is missing", archive{fresh: true, present: []string{"chromium", "fish", "mypy"}},
			[]string{"install -y --no-install-recommends zsh"},
			[]string{`^testdeps: installing zsh `, `^testdeps: installed zsh in \d+ s$`}},
		{"nothing missing: no apt-get", archive{present: []string{"chromium", "zsh", "fish", "mypy"}},
			[]string{""},
			[]string{`^testdeps: chromium zsh fish mypy already installed$`}},
		{"the archive cannot be reached", archive{},
			[]string{installAll, "update", installAll, "install -y --no-install-recommends chromium",
				"install -y --no-install-recommends zsh", "install -y --no-install-recommends fish",
				"install -y --no-install-recommends mypy"},
			[]string{`^testdeps: installing`,
				`^SKIPPED: chromium could not be installed \(apt-get update: Failed to fetch .* Temporary failure resolving 'deb.debian.org'; see .*\); the tests that need it will say NOT TESTED$`,
				`^SKIPPED: zsh could not be installed \(apt-get update: Failed to fetch .*\); the tests that need it will say NOT TESTED$`,
				`^SKIPPED: fish could not be installed \(apt-get update: Failed to fetch .*\); the tests that need it will say NOT TESTED$`,
				`^SKIPPED: mypy could not be installed \(apt-get update: Failed to fetch .*\); the tests that need it will say NOT TESTED$`}},
		{"one package the archive lacks keeps no other out", archive{online: true, lacks: []string{"chromium"}},
			[]string{installAll, "update", installAll, "install -y --no-install-recommends chromium",
				"install -y --no-install-recommends zsh", "install -y --no-install-recommends fish",
				"install -y --no-install-recommends mypy"},
			[]string{`^testdeps: installing`,
				`^SKIPPED: chromium could not be installed \(Unable to locate package chromium; see .*\); the tests that need it will say NOT TESTED$`,
				`^testdeps: installed zsh fish mypy in \d+ s$`}},
		{"no apt-get", archive{noAptGet: true, present: []string{"zsh"}},
			[]string{""},
			[]string{`^SKIPPED: chromium could not be installed \(apt-get is not available; .*\); the tests that need it will say NOT TESTED$`,
				`^SKIPPED: fish could not be installed \(apt-get is not available; .*\)`,
				`^SKIPPED: mypy could not be installed \(apt-get is not available; .*\)`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			out, code, calls := runInstall(t, c.archive)
			if code != 0 {
				t.Errorf("exit %d, want 0 whatever apt-get does", code)
			}
			if !slices.Equal(calls, c.calls) {
				t.Errorf("apt-get calls:\n%q\nwant\n%q", calls, c.calls)
			}
			lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
			if len(lines) != len(c.output) {
				t.Fatalf("output:\n%s\nwant %d lines", out, len(c.output))
			}
			for i, pattern := range c.output {
				if !regexp.MustCompile(pattern).MatchString(lines[i]) {
					t.Errorf("line %d = %q, want it to match %q", i+1, lines[i], pattern)
				}
			}
		})
	}
}

// TestCIRunsTheREADMEsTestCommand: .ci/run runs exactly the command of the
// README's "## Test" block, and that command installs the test
// dependencies first.
func TestCIRunsTheREADMEsTestCommand(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	ci, err := os.ReadFile(filepath.Join("..", "..", ".ci", "run"))
	if err != nil {
		t.Fatal(err)
	}
	block := regexp.MustCompile("(?m)^## Test\n\n```sh[^\n]*\n(.*)\n```\n").FindSubmatch(readme)
	if block == nil {
		t.Fatal("README.md has no ## Test block of one command")
	}
	command := string(block[1])
	if !strings.HasPrefix(command, "bash internal/testdeps/install.sh && go test ./... && ") {
		t.Errorf("the README's test command does not begin by installing the test dependencies: %s", command)
	}
	if lines := strings.Split(strings.TrimSpace(string(ci)), "\n"); lines[len(lines)-1] != command {
		t.Errorf(".ci/run's last line is not the README's test command:\n%s\nwant\n%s", lines[len(lines)-1], command)
	}
}
