package libs

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	gitpkg "rooda/host/git"
)

// git runs the git program and returns what it printed.
func git(ctx context.Context, args ...string) (string, error) {
	return gitpkg.Run(ctx, gitpkg.Command{Args: args})
}

// mirror is the cache's bare copy of a repository. It is named by the
// URL without its secret, so that a new password or token keeps it.
func (m *Manager) mirror(url string) string {
	sum := sha256.Sum256([]byte(gitpkg.RedactURL(url)))
	return filepath.Join(m.CacheDir, mirrors, hex.EncodeToString(sum[:8]))
}

// fetch brings the mirror of url up to date, making it on first use.
func (m *Manager) fetch(ctx context.Context, url string) (string, error) {
	dir := m.mirror(url)
	_, statErr := os.Stat(dir)
	switch {
	case m.Offline && statErr == nil:
		return dir, nil // what the cache has, however old
	case m.Offline:
		return "", fmt.Errorf("%s is not in the cache, and --offline forbids fetching it", gitpkg.RedactURL(url))
	case statErr != nil:
		return dir, m.clone(ctx, url, dir)
	}
	// From the configuration's URL, not the mirror's, which holds no
	// secret.
	_, err := git(ctx, "--git-dir", dir, "fetch", "--quiet", "--force", "--tags", "--prune", "--", url, "+refs/heads/*:refs/heads/*")
	return dir, redacted(err, url)
}

// redacted is err with url's secret hidden: git's errors quote the URL,
// and rooda's quote git's command line.
func redacted(err error, url string) error {
	if err == nil || gitpkg.Redact(err.Error(), url) == err.Error() {
		return err
	}
	return errors.New(gitpkg.Redact(err.Error(), url))
}

// clone makes the mirror of url at dir. It clones into a new directory
// and renames it into place, so that an interrupted clone leaves nothing
// half made; one killed before it could remove that directory leaves it
// to the next holder of the cache's lock (sweep).
func (m *Manager) clone(ctx context.Context, url, dir string) error {
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), "clone-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	// "--" keeps a URL that starts with - from being read as an option.
	repo := filepath.Join(tmp, "repo")
	if _, err := git(ctx, "clone", "--quiet", "--bare", "--", url, repo); err != nil {
		return redacted(err, url)
	}
	// The cache may be read by others: it keeps the URL without its
	// secret, and fetch gives git the configuration's.
	if _, err := git(ctx, "--git-dir", repo, "remote", "set-url", "origin", gitpkg.RedactURL(url)); err != nil {
		return err
	}
	return settle(os.Rename(repo, dir), dir)
}

// settle accepts a rename that lost a race: the other run put the same
// thing there.
func settle(err error, dir string) error {
	if err != nil {
		if _, statErr := os.Stat(dir); statErr == nil {
			return nil
		}
	}
	return err
}

// commitOf is the commit ref names in the mirror.
func commitOf(ctx context.Context, mirror, ref string) (string, error) {
	out, err := git(ctx, "--git-dir", mirror, "rev-parse", "--verify", "--quiet", ref+"^{commit}")
	if err != nil || out == "" {
		return "", fmt.Errorf("ref %s names no commit of the repository", ref)
	}
	return out, nil
}

// hasCommit reports whether the mirror holds commit. A commit rewritten
// away upstream (a force-push, then git's collection) is gone from a
// mirror fetched since.
func hasCommit(ctx context.Context, mirror, commit string) bool {
	_, err := git(ctx, "--git-dir", mirror, "cat-file", "-e", commit+"^{commit}")
	return err == nil
}

// export writes commit's files into the cache, once, and returns their
// directory.
func (m *Manager) export(ctx context.Context, mirror, commit string) (string, error) {
	dir := m.commitDir(commit)
	if _, err := os.Stat(dir); err == nil {
		return dir, nil
	}
	files, done, err := m.checkout(ctx, mirror, commit)
	if err != nil {
		return "", err
	}
	defer done()
	return dir, m.settleExport(files, dir)
}

// commitDir is where a commit's files are in the cache.
func (m *Manager) commitDir(commit string) string {
	return filepath.Join(m.CacheDir, pinned, commit)
}

// checkout writes commit's files, straight from the mirror's objects, into
// a new directory of the cache, and returns it with the function that
// removes what is left of it.
func (m *Manager) checkout(ctx context.Context, mirror, commit string) (files string, done func(), err error) {
	tmp, err := os.MkdirTemp(m.CacheDir, "export-")
	if err != nil {
		return "", nil, err
	}
	done = func() { os.RemoveAll(tmp) }
	files = filepath.Join(tmp, "files")
	if err := os.Mkdir(files, 0o755); err != nil {
		done()
		return "", nil, err
	}
	_, err = gitpkg.Run(ctx, gitpkg.Command{Env: checkoutEnv(filepath.Join(tmp, "index")), Args: []string{
		"-c", "core.autocrlf=false", "-c", "core.eol=lf", "-c", "core.symlinks=true",
		"--git-dir", mirror, "--work-tree", files, "checkout", "--quiet", "--force", commit, "--", "."}})
	if err != nil {
		done()
		return "", nil, err
	}
	return files, done, nil
}

// settleExport renames a checkout into place as the cache's files of a
// commit: whole, so a cache entry is either complete or absent.
func (m *Manager) settleExport(files, dir string) error {
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return err
	}
	return settle(os.Rename(files, dir), dir)
}

// restore makes the cache's files of commit the fresh checkout files, when
// the cache lacks them or its copy of the library at path differs from
// them (someone edited it), and returns how it differed.
func (m *Manager) restore(files, commit, path string) (difference, error) {
	dir := m.commitDir(commit)
	if _, err := os.Lstat(dir); err != nil {
		return difference{}, m.settleExport(files, dir)
	}
	d, err := differ(filepath.Join(files, path), filepath.Join(dir, path))
	if err != nil || d.none() {
		return d, err
	}
	// The edited copy goes beside the checkout, which is removed with it.
	if err := os.Rename(dir, filepath.Join(filepath.Dir(files), "edited")); err != nil {
		return d, err
	}
	return d, m.settleExport(files, dir)
}

// checkoutEnv makes a checkout the same on every machine: an index of its
// own, and none of the user's or the system's git configuration (line
// endings, filters), which would change the files and so their hash.
func checkoutEnv(index string) []string {
	return []string{"GIT_INDEX_FILE=" + index, "GIT_CONFIG_GLOBAL=" + os.DevNull, "GIT_CONFIG_NOSYSTEM=1"}
}
