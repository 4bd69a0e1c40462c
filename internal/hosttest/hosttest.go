// Package hosttest runs Starlark scripts in a temporary workspace for the
// tests of host and builtins: the real builtins, the real standard library,
// a configuration with no global file and no ROODA_ variables, and the
// output captured.
package hosttest

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"rooda/builtins"
	"rooda/host"
	"rooda/host/config"
	"rooda/host/session"
	"rooda/scripts"
)

// Fixture is a workspace of scripts and the options of the runtime that
// runs them.
type Fixture struct {
	T              testing.TB
	Dir            string
	Stdout, Stderr bytes.Buffer
	Opts           host.Options
	// Flags are command-line settings (--max-iterations …) for Config.
	Flags []config.Flag
	// Test gives scripts what *_test.star files see: assert, fake_agent.
	Test bool
	// DryRun makes the run's loops reports, as --dry-run does.
	DryRun bool
}

// New writes files into a new workspace and makes it the working
// directory for the test.
func New(t testing.TB, files map[string]string) *Fixture {
	t.Helper()
	f := &Fixture{T: t, Dir: t.TempDir()}
	t.Chdir(f.Dir)
	f.Write(files)
	f.Opts = host.Options{Stdlib: scripts.FS}
	return f
}

// Write adds files to the workspace.
func (f *Fixture) Write(files map[string]string) {
	f.T.Helper()
	for name, content := range files {
		path := filepath.Join(f.Dir, name)
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			f.T.Fatal(err)
		}
	}
}

// Config is the workspace's configuration: no global file, no ROODA_
// variables, the fixture's flags.
func (f *Fixture) Config() *config.Config {
	f.T.Helper()
	env := map[string]string{"ROODA_CONFIG_HOME": filepath.Join(f.Dir, "no-global")}
	cfg, err := config.Load(config.Options{LookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok }, Flags: f.Flags})
	if err != nil {
		f.T.Fatal(err)
	}
	return cfg
}

// Options are the runtime options for the workspace, with args for the
// script: the fixture's, completed with the builtins and a session of
// the workspace's configuration (with Test, one for each runtime, as
// script tests have).
func (f *Fixture) Options(args ...string) host.Options {
	f.T.Helper()
	opts := f.Opts
	opts.Predeclared = builtins.Predeclared(args, f.DryRun)
	if f.Test {
		opts.Predeclared = builtins.TestPredeclared(args)
	}
	opts.Stderr = &f.Stderr
	if f.Test {
		// As `rooda script test`: a session for each test's runtime.
		opts.Attach = session.ForTests(context.Background(), f.Config(), nil)
		return opts
	}
	budgets := session.Budgets{MaxSteps: opts.MaxSteps, MaxMemory: opts.MaxMemory}
	s := session.New(context.Background(), session.Options{Config: f.Config(), DryRun: f.DryRun, Stdout: &f.Stdout, Stderr: &f.Stderr, Budgets: budgets})
	return s.RuntimeOptions(opts)
}

// Runtime is a fresh runtime over the workspace, with args for the script.
func (f *Fixture) Runtime(args ...string) *host.Runtime {
	f.T.Helper()
	r, err := host.New(f.Options(args...))
	if err != nil {
		f.T.Fatal(err)
	}
	return r
}

// Run runs the script file to its end.
func (f *Fixture) Run(file string, args ...string) error {
	return f.Runtime(args...).Run(context.Background(), file)
}
