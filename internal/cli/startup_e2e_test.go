package cli

import (
	"bufio"
	"bytes"
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"rooda/internal/golden"
)

// initBudgetBytes is what one of rooda's own packages may allocate while
// it initialises. Go runs every linked package's initialisation at each
// start, for `rooda version` as for a run: a regular expression, a
// template or a table built at package level costs every command
// (docs/performance.md, "Start-up"). What only some commands use is
// built on first use (sync.OnceValue). The settings table of
// host/config, which every command's flags come from, is ~20 KiB.
const initBudgetBytes = 32 << 10

// TestOwnPackagesInitialiseLightly reads the runtime's own account of
// each package's initialisation (GODEBUG=inittrace=1: bytes allocated,
// which do not depend on the machine's load) and holds rooda's packages
// to initBudgetBytes each.
func TestOwnPackagesInitialiseLightly(t *testing.T) {
	cmd := exec.Command(binary(t), "version")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("rooda version: %v\n%s", err, stderr.String())
	}
	inits := initAllocations(t, stderr.String())
	if len(inits) == 0 {
		t.Fatalf("no inittrace line for rooda's packages in:\n%s", stderr.String())
	}
	for pkg, size := range inits {
		if size > initBudgetBytes {
			t.Errorf("%s allocates %d bytes initialising, more than %d: make what not every command needs lazy (sync.OnceValue)", pkg, size, initBudgetBytes)
		}
	}
}

// initAllocations reads inittrace lines, "init rooda/host/config @2.1
// ms, 0.05 ms clock, 20512 bytes, 262 allocs", into bytes per rooda
// package.
func initAllocations(t *testing.T, trace string) map[string]int {
	t.Helper()
	inits := map[string]int{}
	lines := bufio.NewScanner(strings.NewReader(trace))
	for lines.Scan() {
		f := strings.Fields(lines.Text())
		if len(f) != 11 || f[0] != "init" || f[8] != "bytes," || !strings.HasPrefix(f[1], "rooda/") && f[1] != "main" {
			continue
		}
		n, err := strconv.Atoi(f[7])
		if err != nil {
			t.Fatalf("bytes in %q: %v", lines.Text(), err)
		}
		inits[f[1]] = n
	}
	return inits
}

// heavyModules are the modules of what few commands use and every start
// of a program that links them initialises: buildtools (script fmt and
// script lint, which bring protobuf), the OpenTelemetry SDK and its OTLP
// exporters of traces, with gRPC and protobuf (docs/design.md, "Two
// programs: rooda and rooda-full").
var heavyModules = []string{
	"github.com/bazelbuild/buildtools",
	"go.opentelemetry.io/otel/sdk",
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace",
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc",
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp",
	"google.golang.org/grpc",
	"google.golang.org/protobuf",
}

// TestRoodaLinksNeitherBuildtoolsNorExporters reads the modules each
// program was built with (go version -m): rooda links none of
// heavyModules, and rooda-full, which rooda hands those commands over
// to, links each.
func TestRoodaLinksNeitherBuildtoolsNorExporters(t *testing.T) {
	dir := binaries(t)
	for program, want := range map[string]bool{"rooda": false, "rooda-full": true} {
		out, err := exec.Command("go", "version", "-m", filepath.Join(dir, program)).Output()
		if err != nil {
			t.Fatalf("go version -m %s: %v", program, err)
		}
		linked := map[string]bool{}
		for _, line := range strings.Split(string(out), "\n") {
			if f := strings.Fields(line); len(f) > 1 && f[0] == "dep" {
				linked[f[1]] = true
			}
		}
		for _, module := range heavyModules {
			if linked[module] != want {
				t.Errorf("%s links %s: %v, want %v", program, module, linked[module], want)
			}
		}
	}
}

// releaseFlags and releaseEnv are the build flags and environment of
// the releases (deploy/Dockerfile, deploy/github-actions/rooda.yml,
// README's go install).
var (
	releaseFlags = []string{"-trimpath", "-tags", "urfave_cli_no_docs", "-ldflags=-s -w"}
	releaseEnv   = []string{"CGO_ENABLED=0"}
)

// TestReleaseBuildLeavesTheMarkdownRendererOut: built as releases are,
// rooda initialises no Markdown renderer at its start (urfave/cli's
// md2man and blackfriday, which only ToMan used), loads no C library
// (a static program: no dynamic loader, no libc, about 0.8 ms of CPU a
// start), and still writes the same man page, its own (man.go).
func TestReleaseBuildLeavesTheMarkdownRendererOut(t *testing.T) {
	binaries(t)
	release := filepath.Join(t.TempDir(), "rooda")
	build := exec.Command("go", append(append([]string{"build"}, releaseFlags...), "-o", release, "rooda/cmd/rooda")...)
	build.Env = append(os.Environ(), releaseEnv...)
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("%v go build %v: %v\n%s", releaseEnv, releaseFlags, err, out)
	}
	if libs := importedLibraries(t, release); len(libs) > 0 {
		t.Errorf("the release build loads %v", libs)
	}
	cmd := exec.Command(release, "version")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	trace, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("rooda version: %v\n%s", err, trace)
	}
	for _, pkg := range []string{"github.com/russross/blackfriday", "github.com/cpuguy83/go-md2man"} {
		if strings.Contains(string(trace), "init "+pkg) {
			t.Errorf("the release build initialises %s", pkg)
		}
	}
	page, err := exec.Command(release, "man").Output()
	if err != nil {
		t.Fatalf("rooda man: %v", err)
	}
	golden.Check(t, "man_rooda.1", string(page))
}

// importedLibraries are the shared libraries the program at path loads.
func importedLibraries(t *testing.T, path string) []string {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	libs, err := f.ImportedLibraries()
	if err != nil {
		t.Fatal(err)
	}
	return libs
}
