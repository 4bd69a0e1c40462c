package libs

import (
	"fmt"
	"path/filepath"
	"strings"

	"rooda/host/config"
)

// WithFlags lays the command line's --lib NAME=DIR over the
// configuration's libraries: a library named there is that directory,
// and a git library of the same name is not fetched at all.
func WithFlags(libs map[string]config.Value[config.Library], flags []string) (map[string]config.Value[config.Library], error) {
	out := make(map[string]config.Value[config.Library], len(libs)+len(flags))
	for name, lib := range libs {
		out[name] = lib
	}
	for _, f := range flags {
		name, dir, ok := strings.Cut(f, "=")
		if !ok || dir == "" {
			return nil, fmt.Errorf("--lib %q: want NAME=DIR", f)
		}
		if err := config.CheckLibraryName(name); err != nil {
			return nil, fmt.Errorf("--lib %q: %w", f, err)
		}
		abs, err := filepath.Abs(dir)
		if err != nil {
			return nil, err
		}
		out[name] = config.Value[config.Library]{V: config.Library{Dir: abs}, Set: true, Source: config.Source{Tier: config.CLI, Name: "--lib"}}
	}
	return out, nil
}
