package libs

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"

	"rooda/host/config"
	gitpkg "rooda/host/git"
)

// Manager finds, fetches and pins libraries.
type Manager struct {
	// CacheDir holds the mirrors and the pinned files: DefaultCacheDir.
	CacheDir string
	// Offline forbids the network: a library not in the cache is an error.
	Offline bool
	// Notice, when set, is told what rooda waits for, as it begins to
	// wait: another rooda's hold on the cache.
	Notice func(msg string)
}

// DefaultCacheDir is $XDG_CACHE_HOME/rooda, else ~/.cache/rooda.
func DefaultCacheDir() (string, error) {
	dir, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "rooda"), nil
}

// Trusted are the directories of the cache whose content rooda runs: the
// mirrors, bare repositories whose config rooda's git reads as it
// fetches, and the pinned files a script loads. They lie in the user's
// cache, which a sandboxed agent writes (its builds need it): a
// sandbox hides them, or a library of the agent's (one that turns the
// sandbox off) or a mirror's config (a command to fetch with) would run
// in a later rooda, outside the sandbox.
func Trusted(cacheDir string) []string {
	return []string{filepath.Join(cacheDir, mirrors), filepath.Join(cacheDir, pinned)}
}

// The cache's directories of mirrors and of pinned files.
const mirrors, pinned = "git", "lib"

// Dirs returns the directory of every library: a directory library's
// own, a git library's pinned files, fetched and pinned on first use.
func (m *Manager) Dirs(ctx context.Context, libs map[string]config.Value[config.Library]) (map[string]string, error) {
	// Only git libraries need the cache: a run without one must not wait
	// for another rooda's fetch.
	if Waits(libs) {
		unlock, err := m.lock(ctx)
		if err != nil {
			return nil, err
		}
		defer unlock()
	}
	dirs := map[string]string{}
	for _, name := range slices.Sorted(maps.Keys(libs)) {
		lib := libs[name].V
		if lib.Git == "" {
			dirs[name] = lib.Dir
			continue
		}
		dir, err := m.use(ctx, name, lib)
		if err != nil {
			return nil, fmt.Errorf("library %s: %w", name, err)
		}
		dirs[name] = dir
	}
	return dirs, nil
}

// Waits reports whether Dirs may wait for libs: for the cache's lock,
// or git. Only git libraries do.
func Waits(libs map[string]config.Value[config.Library]) bool {
	for _, l := range libs {
		if l.V.Git != "" {
			return true
		}
	}
	return false
}

// use returns a git library's directory: the pinned commit's files from
// the cache, checked against the pin's hash; fetched if the cache lacks
// them; pinned now if rooda.lock has no pin.
func (m *Manager) use(ctx context.Context, name string, lib config.Library) (string, error) {
	lk, err := readLock(lib.LockDir)
	if err != nil {
		return "", err
	}
	pin, pinned := lk.Libraries[name]
	if !pinned {
		// A cache that differed from git is restored by pin, before this
		// run uses it.
		pin, _, err = m.pin(ctx, lib)
		if err != nil {
			return "", err
		}
		lk.Libraries[name] = pin
		return m.dir(pin), lk.write(lib.LockDir)
	}
	if err := pin.covers(name, lib); err != nil {
		return "", err
	}
	if _, err := os.Stat(m.dir(pin)); err != nil {
		// A machine with an empty cache takes the pinned commit, whatever
		// the ref names now: only rooda lib update moves a pin.
		mirror, err := m.fetch(ctx, lib.Git)
		if err != nil {
			return "", err
		}
		if !hasCommit(ctx, mirror, pin.Commit) {
			return "", m.commitGone(name, pin)
		}
		if _, err := m.export(ctx, mirror, pin.Commit); err != nil {
			return "", fmt.Errorf("the pinned commit %s: %w", short(pin.Commit), err)
		}
	}
	return m.dir(pin), m.verify(ctx, name, pin)
}

// commitGone is the error for a pinned commit the repository no longer
// has: the pin must move, which is rooda lib update's to do. Offline, the
// cache's copy may only be older than the commit.
func (m *Manager) commitGone(name string, pin Pin) error {
	if m.Offline {
		return fmt.Errorf("the pinned commit %s is not in the cache's copy of %s, and --offline forbids fetching it; run without --offline", short(pin.Commit), gitpkg.RedactURL(pin.Git))
	}
	return fmt.Errorf("the pinned commit %s is no longer in %s (its history was rewritten?); run rooda lib update %s to pin what %s gives now",
		short(pin.Commit), gitpkg.RedactURL(pin.Git), name, pin.Ref)
}

// dir is where a pin's library files are in the cache.
func (m *Manager) dir(p Pin) string {
	return filepath.Join(m.commitDir(p.Commit), filepath.FromSlash(p.Path))
}

// pin fetches a library, resolves its ref and hashes its files. The hash
// is of a fresh checkout from git, never of the cache, which may have been
// edited: the cache is restored from the checkout where it differs, and
// the difference returned.
func (m *Manager) pin(ctx context.Context, lib config.Library) (Pin, difference, error) {
	mirror, err := m.fetch(ctx, lib.Git)
	if err != nil {
		return Pin{}, difference{}, err
	}
	commit, err := commitOf(ctx, mirror, lib.Ref)
	if err != nil {
		return Pin{}, difference{}, err
	}
	files, done, err := m.checkout(ctx, mirror, commit)
	if err != nil {
		return Pin{}, difference{}, err
	}
	defer done()
	p := Pin{Git: gitpkg.RedactURL(lib.Git), Ref: lib.Ref, Path: lib.Path, Commit: commit}
	if p.SHA256, err = hashLibrary(files, p); err != nil {
		return Pin{}, difference{}, err
	}
	d, err := m.restore(files, commit, filepath.FromSlash(lib.Path))
	return p, d, err
}

// hashLibrary hashes the library at the pin's path of a checkout, which
// must be a directory of the repository.
func hashLibrary(files string, p Pin) (string, error) {
	dir := filepath.Join(files, filepath.FromSlash(p.Path))
	info, err := os.Stat(dir)
	if err != nil || !info.IsDir() {
		return "", fmt.Errorf("path %q is not a directory of the repository at %s", p.Path, short(p.Commit))
	}
	if target, out := Outside(files, dir); out {
		return "", fmt.Errorf("path %q is a symbolic link to %s, outside the repository", p.Path, target)
	}
	return hashDir(dir)
}

// verify checks the cached files against the pin's hash, and says what
// differs, and what to do, when they do not match.
func (m *Manager) verify(ctx context.Context, name string, pin Pin) error {
	sum, err := hashDir(m.dir(pin))
	if err != nil || sum == pin.SHA256 {
		return err
	}
	general := fmt.Errorf("hash mismatch: rooda.lock has sha256 %s for commit %s, but the cached files in %s hash to %s; run rooda lib fetch to fetch them again, or delete %s",
		pin.SHA256, short(pin.Commit), m.dir(pin), sum, m.commitDir(pin.Commit))
	mirror := m.mirror(pin.Git)
	if _, err := os.Stat(mirror); err != nil {
		return general
	}
	files, done, err := m.checkout(ctx, mirror, pin.Commit)
	if err != nil {
		return general
	}
	defer done()
	fresh := filepath.Join(files, filepath.FromSlash(pin.Path))
	gitSum, err := hashDir(fresh)
	if err != nil {
		return general
	}
	if gitSum != pin.SHA256 {
		return pinMismatch(name, pin, fresh, gitSum)
	}
	d, err := differ(fresh, m.dir(pin))
	if err != nil {
		return general
	}
	return fmt.Errorf("hash mismatch: the cached files differ from git's commit %s (%s) in %s: they were edited after the fetch. Run rooda lib fetch to restore them from git, or delete %s",
		short(pin.Commit), d, m.dir(pin), m.commitDir(pin.Commit))
}

// pinMismatch is the error for a pin that git's files at fresh, which
// hash to gitSum, do not match: rooda.lock was edited, or an earlier
// rooda pinned a library with links by a hash that left them out.
func pinMismatch(name string, pin Pin, fresh, gitSum string) error {
	if before, err := hashBeforeLinks(fresh); err == nil && before == pin.SHA256 {
		return fmt.Errorf("rooda.lock pins commit %s by a hash of an earlier rooda, which left out symbolic links; the library has them. Check where its links lead, then run rooda lib update %s to pin them too",
			short(pin.Commit), name)
	}
	return fmt.Errorf("hash mismatch: rooda.lock has sha256 %s for commit %s, but git's files of that commit hash to %s; if rooda.lock was edited, restore it, or run rooda lib update %s to pin again",
		pin.SHA256, short(pin.Commit), gitSum, name)
}

// mismatch is the error for a pin that the ref no longer gives: it says
// what moved, the commit, the files' content hash or both, since the
// way out differs (a moved tag is news; the same commit hashing
// otherwise means rooda.lock was edited).
func mismatch(name string, pin, now Pin) error {
	at := fmt.Sprintf("rooda.lock pins %s %s at commit %s", gitpkg.RedactURL(pin.Git), pin.Ref, short(pin.Commit))
	switch {
	case pin.Commit == now.Commit:
		return fmt.Errorf("hash mismatch: %s, which it still gives, but the commit's files hash to sha256 %s, not the pinned %s; if rooda.lock was edited, restore it, or run rooda lib update %s to pin again",
			at, now.SHA256, pin.SHA256, name)
	case pin.SHA256 == now.SHA256:
		return fmt.Errorf("the ref moved: %s; it now gives commit %s, whose files are the same (sha256 %s). Run rooda lib update %s to pin the new commit",
			at, short(now.Commit), now.SHA256, name)
	}
	return fmt.Errorf("hash mismatch: the ref moved and the files changed: %s, sha256 %s; it now gives commit %s, sha256 %s. If the change is wanted, run rooda lib update %s",
		at, pin.SHA256, short(now.Commit), now.SHA256, name)
}

func short(commit string) string { return commit[:min(len(commit), 12)] }
