package config

import (
	_ "embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"rooda/host/files"
	"rooda/host/prompt"
)

// FileName is the name of a configuration file, global or workspace.
const FileName = "rooda-config.yml"

// Options says where Load looks.
type Options struct {
	// WorkDir is the workspace; "" means the current directory.
	WorkDir string
	// ConfigFile is --config: the workspace file to read instead of
	// ./rooda-config.yml. Unlike the default, it must exist.
	ConfigFile string
	// LookupEnv reads the environment; nil means os.LookupEnv.
	LookupEnv func(string) (string, bool)
	// Environ lists the environment ("NAME=value"), to find ROODA_LOOP_
	// variables that name no setting. nil means os.Environ when LookupEnv
	// is nil too, and no such check when only LookupEnv is given.
	Environ func() []string
	// Flags are the command line's settings, the highest tier, in the
	// order given.
	Flags []Flag
	// NoWorkspaceFile leaves the workspace file unread: rooda init, which
	// writes it, reads only the tiers around it.
	NoWorkspaceFile bool
}

// Flag is one command-line setting: its name without dashes
// ("max-iterations") and its value as typed ("true" for a switch).
type Flag struct{ Name, Value string }

//go:embed builtin.yml
var builtinYAML []byte

// builtIn is the built-in tier, rooda's defaults: builtin.yml, whose
// YAML was parsed when rooda was built (builtin_nodes.go). Parsing its
// text took 0.6 ms of every start that reads the configuration (list,
// run, script check), more than decoding its nodes.
func builtIn() (*Config, error) {
	cfg, err := (&decoder{src: Source{Tier: BuiltIn}}).config(builtinRoot)
	if err != nil {
		return nil, fmt.Errorf("the built-in configuration is broken: %w", err)
	}
	return cfg, nil
}

// Load reads every tier and merges them: built-in < global < workspace <
// environment < flags. It reports every problem it finds in any tier,
// each with its file and line, and returns no configuration if there is one.
func Load(opts Options) (*Config, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	cfg, err := builtIn()
	if err != nil {
		return nil, err
	}
	var problems prompt.Problems
	files, err := opts.files()
	problems.Add(err)
	for _, f := range files {
		layer, err := f.read()
		problems.Add(err)
		if layer != nil {
			cfg.merge(layer)
		}
	}
	env, err := fromEnv(opts.LookupEnv, opts.Environ)
	problems.Add(err)
	if env != nil {
		cfg.merge(env)
	}
	problems.Add(cfg.applyFlags(opts.Flags))
	if len(problems) == 0 {
		problems.Add(cfg.validate())
	}
	if len(problems) > 0 {
		return nil, problems
	}
	return cfg, nil
}

func (o Options) withDefaults() (Options, error) {
	if o.LookupEnv == nil {
		o.LookupEnv = os.LookupEnv
		if o.Environ == nil {
			o.Environ = os.Environ
		}
	}
	if o.WorkDir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return o, fmt.Errorf("cannot find the working directory: %w", err)
		}
		o.WorkDir = wd
	}
	abs, err := filepath.Abs(o.WorkDir)
	o.WorkDir = abs
	return o, err
}

// file is a configuration file to read.
type file struct {
	path     string // absolute
	src      Source
	required bool
}

// files lists the global and the workspace file, those that exist or must.
func (o Options) files() ([]file, error) {
	var out []file
	if dir := o.globalDir(); dir != "" {
		path := filepath.Join(dir, FileName)
		out = append(out, file{path, Source{Global, o.display(path)}, false})
	}
	path, required := filepath.Join(o.WorkDir, FileName), false
	if o.ConfigFile != "" {
		path, required = o.ConfigFile, true
		if !filepath.IsAbs(path) {
			path = filepath.Join(o.WorkDir, path)
		}
	}
	if o.NoWorkspaceFile {
		return out, nil
	}
	if len(out) == 1 && sameFile(out[0].path, path) {
		out = out[:0] // the workspace is the global directory: read it once
	}
	out = append(out, file{path, Source{Workspace, o.display(path)}, required})
	return out, nil
}

// globalDir is $ROODA_CONFIG_HOME, else $XDG_CONFIG_HOME/rooda, else
// ~/.config/rooda; "" when none can be found.
func (o Options) globalDir() string {
	if dir, ok := o.LookupEnv("ROODA_CONFIG_HOME"); ok && dir != "" {
		return dir
	}
	if dir, ok := o.LookupEnv("XDG_CONFIG_HOME"); ok && dir != "" {
		return filepath.Join(dir, "rooda")
	}
	if home := o.home(); home != "" {
		return filepath.Join(home, ".config", "rooda")
	}
	return ""
}

func (o Options) home() string {
	home, _ := o.LookupEnv("HOME")
	return home
}

// display names a file as messages and provenance show it: relative to the
// workspace ("./rooda-config.yml"), else to the home directory
// ("~/.config/rooda/rooda-config.yml"), else absolute.
func (o Options) display(path string) string {
	if rel, ok := files.Within(o.WorkDir, path); ok {
		return "./" + filepath.ToSlash(rel)
	}
	if home := o.home(); home != "" {
		if rel, ok := files.Within(home, path); ok {
			return "~/" + filepath.ToSlash(rel)
		}
	}
	return filepath.ToSlash(path)
}

func sameFile(a, b string) bool {
	ia, errA := os.Stat(a)
	ib, errB := os.Stat(b)
	if errA != nil || errB != nil {
		return filepath.Clean(a) == filepath.Clean(b)
	}
	return os.SameFile(ia, ib)
}

// read decodes the file; a missing optional file is no configuration.
func (f file) read() (*Config, error) {
	data, err := files.Read(f.path, files.ConfigLimit)
	switch {
	case errors.Is(err, fs.ErrNotExist) && !f.required:
		return nil, nil
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("config file not found: %s (given with --config)", f.src.Name)
	case err != nil:
		return nil, fmt.Errorf("cannot read %s config %s: %w", f.src.Tier, f.src.Name, unwrapPath(err))
	}
	cfg, err := Decode(data, f.src, filepath.Dir(f.path))
	if cfg != nil {
		cfg.Files = []Source{f.src}
	}
	return cfg, err
}

// unwrapPath drops the path os repeats in its errors: the message already
// names the file.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		if pe.Err.Error() == "is a directory" {
			return errors.New("it is a directory")
		}
		return pe.Err
	}
	return err
}
