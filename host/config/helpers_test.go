package config

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// sandbox is a home directory and a workspace in a temporary directory,
// with an environment of its own: tests never see the real ~/.config.
type sandbox struct {
	t    *testing.T
	root string
	home string
	work string
	env  map[string]string
}

func newSandbox(t *testing.T) *sandbox {
	t.Helper()
	root := t.TempDir()
	s := &sandbox{t: t, root: root, home: filepath.Join(root, "home"), work: filepath.Join(root, "work"), env: map[string]string{}}
	s.env["HOME"] = s.home
	for _, dir := range []string{s.home, s.work} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// write creates a file under the sandbox root, making its directories.
func (s *sandbox) write(rel, content string) string {
	s.t.Helper()
	path := filepath.Join(s.root, rel)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		s.t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		s.t.Fatal(err)
	}
	return path
}

func (s *sandbox) global(yaml string) { s.write("home/.config/rooda/rooda-config.yml", yaml) }

func (s *sandbox) workspace(yaml string) { s.write("work/rooda-config.yml", yaml) }

func (s *sandbox) lookup(name string) (string, bool) {
	v, ok := s.env[name]
	return v, ok
}

// environ lists the sandbox's environment as os.Environ does.
func (s *sandbox) environ() []string {
	var out []string
	for k, v := range s.env {
		out = append(out, k+"="+v)
	}
	slices.Sort(out)
	return out
}

func (s *sandbox) options(flags ...Flag) Options {
	return Options{WorkDir: s.work, LookupEnv: s.lookup, Environ: s.environ, Flags: flags}
}

func (s *sandbox) load(flags ...Flag) (*Config, error) {
	return Load(s.options(flags...))
}

func (s *sandbox) mustLoad(flags ...Flag) *Config {
	s.t.Helper()
	cfg, err := s.load(flags...)
	if err != nil {
		s.t.Fatalf("Load: %v", err)
	}
	return cfg
}

// scrub replaces the sandbox's temporary path in a message, so that it can
// be compared with a golden file.
func (s *sandbox) scrub(msg string) string {
	return strings.ReplaceAll(msg, s.root, "$SANDBOX")
}

// loopField returns the merged loop field named key.
func loopField(cfg *Config, key string) field {
	return fieldNamed(cfg.Loop.fields(true), key)
}

// effective returns the field a run sees for a loop key: the command
// line's if it set one, else the loop's.
func effective(cfg *Config, key string) field {
	for _, f := range cfg.Run.fields(false) {
		if f.key == key && f.isSet() {
			return f
		}
	}
	return loopField(cfg, key)
}
