package libs

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"

	"rooda/host/config"
	gitpkg "rooda/host/git"
	"rooda/host/suggest"
)

// Fetch fetches every git library from its source: it pins those that
// are not pinned yet, and checks that each pinned one's ref still gives
// the commit and files rooda.lock records. It returns a line per library.
func (m *Manager) Fetch(ctx context.Context, libs map[string]config.Value[config.Library]) ([]string, error) {
	unlock, err := m.lock(ctx)
	if err != nil {
		return nil, err
	}
	defer unlock()
	var lines []string
	var problems []error
	for _, name := range slices.Sorted(maps.Keys(libs)) {
		lib := libs[name].V
		if lib.Git == "" {
			continue
		}
		line, err := m.fetchOne(ctx, name, lib)
		if err != nil {
			problems = append(problems, fmt.Errorf("library %s: %w", name, err))
			continue
		}
		lines = append(lines, line)
	}
	return lines, errors.Join(problems...)
}

func (m *Manager) fetchOne(ctx context.Context, name string, lib config.Library) (string, error) {
	lk, now, restored, err := m.repin(ctx, lib)
	if err != nil {
		return "", err
	}
	pin, pinned := lk.Libraries[name]
	switch {
	case !pinned:
		lk.Libraries[name] = now
		return fmt.Sprintf("%s: pinned %s at %s", name, lib.Ref, short(now.Commit)) + restored, lk.write(lib.LockDir)
	case now.Commit != pin.Commit || now.SHA256 != pin.SHA256:
		return "", mismatch(name, pin, now)
	}
	return fmt.Sprintf("%s: %s at %s, as pinned", name, lib.Ref, short(pin.Commit)) + restored, nil
}

// repin reads the library's lock file and works out the pin its ref
// gives now; restored tells of cached files that differed from git's
// and were restored, for the end of a line.
func (m *Manager) repin(ctx context.Context, lib config.Library) (lk *lock, now Pin, restored string, err error) {
	if lk, err = readLock(lib.LockDir); err != nil {
		return nil, Pin{}, "", err
	}
	now, d, err := m.pin(ctx, lib)
	if !d.none() {
		restored = fmt.Sprintf("; restored the cached files from git (%s)", d)
	}
	return lk, now, restored, err
}

// Update moves the pins of the named git libraries (every one when names
// is empty) to what their refs give now, and returns "name: old → new"
// for each.
func (m *Manager) Update(ctx context.Context, libs map[string]config.Value[config.Library], names []string) ([]string, error) {
	unlock, err := m.lock(ctx)
	if err != nil {
		return nil, err
	}
	defer unlock()
	if len(names) == 0 {
		for _, name := range slices.Sorted(maps.Keys(libs)) {
			if libs[name].V.Git != "" {
				names = append(names, name)
			}
		}
	}
	var lines []string
	for _, name := range names {
		v, ok := libs[name]
		if !ok || v.V.Git == "" {
			return lines, unknown(name, libs)
		}
		line, err := m.updateOne(ctx, name, v.V)
		if err != nil {
			return lines, fmt.Errorf("library %s: %w", name, err)
		}
		lines = append(lines, line)
	}
	return lines, nil
}

func (m *Manager) updateOne(ctx context.Context, name string, lib config.Library) (string, error) {
	lk, now, restored, err := m.repin(ctx, lib)
	if err != nil {
		return "", err
	}
	old, pinned := lk.Libraries[name]
	lk.Libraries[name] = now
	if err := lk.write(lib.LockDir); err != nil {
		return "", err
	}
	switch {
	case !pinned:
		return fmt.Sprintf("%s: pinned %s at %s", name, lib.Ref, short(now.Commit)) + restored, nil
	case old.Commit == now.Commit && old.SHA256 == now.SHA256:
		return fmt.Sprintf("%s: %s, unchanged", name, short(now.Commit)) + restored, nil
	}
	return fmt.Sprintf("%s: %s → %s", name, short(old.Commit), short(now.Commit)) + restored, nil
}

// List describes every library: where it is, and for a git one its pin
// and whether its files are in the cache.
func (m *Manager) List(libs map[string]config.Value[config.Library]) ([]string, error) {
	var lines []string
	for _, name := range slices.Sorted(maps.Keys(libs)) {
		v := libs[name]
		lib := v.V
		if lib.Git == "" {
			lines = append(lines, fmt.Sprintf("%s\t%s\t(%s)", name, lib.Dir, v.Source))
			continue
		}
		lk, err := readLock(lib.LockDir)
		if err != nil {
			return nil, err
		}
		state := "not pinned"
		if pin, ok := lk.Libraries[name]; ok {
			state = "pinned " + short(pin.Commit) + ", not in the cache"
			if _, err := os.Stat(m.dir(pin)); err == nil {
				state = "pinned " + short(pin.Commit) + ", cached"
			}
		}
		source := gitpkg.RedactURL(lib.Git) + " " + lib.Ref
		if lib.Path != "" {
			source += " " + lib.Path
		}
		lines = append(lines, fmt.Sprintf("%s\t%s\t%s\t(%s)", name, source, state, v.Source))
	}
	return lines, nil
}

func unknown(name string, libs map[string]config.Value[config.Library]) error {
	var gitNames []string
	for n, v := range libs {
		if v.V.Git != "" {
			gitNames = append(gitNames, n)
		}
	}
	msg := fmt.Sprintf("no git library %q in the configuration", name)
	if near := suggest.Closest(name, gitNames); near != "" {
		msg += fmt.Sprintf(" (did you mean %s?)", near)
	}
	return errors.New(msg)
}

// Cached returns the directory of every library that can be loaded
// without fetching: a directory library's, and a git library's pinned
// files when the cache has them as pinned. It fetches nothing and writes
// nothing, neither the cache nor rooda.lock: rooda info describes a
// configuration that may not be trusted yet. Why each other git library
// cannot be loaded is in unready.
func (m *Manager) Cached(libs map[string]config.Value[config.Library]) (dirs, unready map[string]string, err error) {
	dirs, unready = map[string]string{}, map[string]string{}
	for name, v := range libs {
		lib := v.V
		if lib.Git == "" {
			dirs[name] = lib.Dir
			continue
		}
		lk, err := readLock(lib.LockDir)
		if err != nil {
			return nil, nil, err
		}
		why := m.unready(name, lib, lk)
		if why == "" {
			dirs[name] = m.dir(lk.Libraries[name])
			continue
		}
		unready[name] = why
	}
	return dirs, unready, nil
}

// unready says why the library's pinned files cannot be used from the
// cache as they are, "" when they can.
func (m *Manager) unready(name string, lib config.Library, lk *lock) string {
	pin, pinned := lk.Libraries[name]
	if !pinned {
		return fmt.Sprintf("library %s (%s) is not fetched yet, and rooda info fetches nothing: run rooda lib fetch, which fetches and pins it", name, gitpkg.RedactURL(lib.Git))
	}
	if err := pin.covers(name, lib); err != nil {
		return err.Error()
	}
	if _, err := os.Stat(m.dir(pin)); err != nil {
		return fmt.Sprintf("library %s is pinned at commit %s, which is not in the cache yet, and rooda info fetches nothing: run rooda lib fetch", name, short(pin.Commit))
	}
	if sum, err := hashDir(m.dir(pin)); err != nil || sum != pin.SHA256 {
		return fmt.Sprintf("library %s: the cached files of commit %s do not hash to what rooda.lock pins: run rooda lib fetch to restore them from git", name, short(pin.Commit))
	}
	return ""
}
