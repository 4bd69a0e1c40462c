package sandbox

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"rooda/host/files"
	"rooda/host/git"
	"rooda/host/sandbox/confine"
)

// git is no way out of the sandbox. A Landlock rule covers a whole
// directory, so a workspace's .git is the agent's to write: its config
// and hooks would run the agent's programs in the next git the user or
// rooda runs there, outside the sandbox. In the agent's mount namespace
// (the one that hides rooda's records) they are covered: each part of
// the git directory that makes git run a program is bound read-only
// onto itself (a write fails, EROFS; a rename or unlink over it,
// EBUSY), and a .git directory is bound onto itself so that it cannot
// be renamed away and replaced by one of the agent's.
//
// A worktree() agent's git writes in the repository it shares with the
// user: objects, refs, logs. There it writes only its own branch. The
// repository's objects are an overlay whose upper layer is the
// iteration's own, the directory of its branch's ref a private copy, and
// the rest of the refs unwritable (Landlock grants them not). After the
// agent, rooda imports what it made (Import): the new objects, verified
// by git, and its branch moved from where it was to where the agent
// left it. Whatever else it did to refs or objects never reaches the
// repository.

// Repo is a workspace's repository, as rooda recorded it before any
// agent ran there (host/git's Recorded), and for a worktree() loop its
// branch and that branch's commit as the iteration starts.
type Repo struct {
	GitDir, CommonDir, Top string
	Branch, Head           string
}

// Branch is a worktree agent's own branch, the only ref it moves: Ref
// (refs/heads/…) in CommonDir, at Head as the agent starts. Private is
// the iteration's directory holding the overlay's upper layer and the
// private copies of the ref's directory and its log's ("" in a dry run).
type Branch struct {
	Ref       string `json:"ref"`
	Head      string `json:"head"`
	CommonDir string `json:"common_dir"`
	Private   string `json:"private,omitempty"`
}

// overs are what the trampoline mounts for b (confine's Branch.Overs).
func (b *Branch) overs() [][2]string {
	return (&confine.Branch{Ref: b.Ref, Head: b.Head, CommonDir: b.CommonDir, Private: b.Private}).Overs()
}

// executable are the parts of a git directory through which git runs
// programs, or finds another git directory.
var executable = []string{"config", "config.worktree", "hooks", "info", "commondir", "gitdir"}

// coverable are what of repo's git directories lies in what the agent
// may write (writable): the parts that run programs (executable) of the
// git directory, of its submodules' and worktrees', and a worktree's .git
// file. pinned are the .git directories there, bound onto themselves.
func coverable(repo Repo, writable []string) (covers, pinned []string) {
	inside := func(p string) bool {
		return slices.ContainsFunc(writable, func(w string) bool { _, ok := files.Within(w, p); return ok })
	}
	dotGit := filepath.Join(repo.Top, ".git")
	if info, err := os.Lstat(dotGit); err == nil && info.Mode().IsRegular() && inside(dotGit) {
		covers = append(covers, dotGit)
	}
	dirs := []string{repo.GitDir}
	if repo.CommonDir != repo.GitDir {
		dirs = append(dirs, repo.CommonDir)
	}
	for _, d := range slices.Clone(dirs) {
		for _, sub := range []string{"modules", "worktrees"} {
			more, _ := filepath.Glob(filepath.Join(d, sub, "*"))
			for _, m := range more {
				if !slices.Contains(dirs, m) { // a worktree's GitDir is one
					dirs = append(dirs, m)
				}
			}
		}
	}
	for _, d := range dirs {
		if !inside(d) {
			continue
		}
		if d == repo.GitDir || d == repo.CommonDir {
			pinned = append(pinned, d)
		}
		for _, part := range executable {
			if p := filepath.Join(d, part); exists(p) && !slices.Contains(covers, p) {
				covers = append(covers, p)
			}
		}
	}
	return covers, pinned
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// makeCoverable makes the hooks and info directories of a git directory
// the agent may write, where it has none, so that they can be covered;
// and where the repository reads a config.worktree (its config turns
// extensions.worktreeConfig on, as sparse-checkout does), an empty one
// in each of its git directories that has none, which the agent would
// otherwise make and fill.
func makeCoverable(repo Repo, writable []string) {
	inside := func(p string) bool {
		return slices.ContainsFunc(writable, func(w string) bool { _, ok := files.Within(w, p); return ok })
	}
	if inside(repo.CommonDir) {
		os.Mkdir(filepath.Join(repo.CommonDir, "hooks"), 0o755)
		os.Mkdir(filepath.Join(repo.CommonDir, "info"), 0o755)
	}
	if !readsWorktreeConfig(repo.CommonDir) {
		return
	}
	worktrees, _ := filepath.Glob(filepath.Join(repo.CommonDir, "worktrees", "*"))
	for _, d := range append([]string{repo.CommonDir, repo.GitDir}, worktrees...) {
		if p := filepath.Join(d, "config.worktree"); inside(d) && !exists(p) {
			os.WriteFile(p, nil, 0o644)
		}
	}
}

// readsWorktreeConfig reports whether the repository's config may turn
// extensions.worktreeConfig on: it names it (in any case; a false one
// costs an empty file).
func readsWorktreeConfig(commonDir string) bool {
	data, err := os.ReadFile(filepath.Join(commonDir, "config"))
	return err == nil && strings.Contains(strings.ToLower(string(data)), "worktreeconfig")
}

// privateBranch makes b's private directory in own (the iteration's
// directory, outside what the agent writes): the overlay's upper
// and work directories, the ref's directory holding the refs it holds
// (the branch's at Head, though it be packed), and its log's.
func privateBranch(b *Branch, own string) error {
	b.Private = filepath.Join(own, privateGit)
	for _, d := range []string{"objects", "work", "refs", "logs"} {
		if err := os.MkdirAll(filepath.Join(b.Private, d), 0o700); err != nil {
			return err
		}
	}
	overs := b.overs()
	for _, o := range overs[1:] {
		if err := os.MkdirAll(o[0], 0o755); err != nil {
			return err
		}
		if err := os.CopyFS(o[1], os.DirFS(o[0])); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	name := filepath.Base(b.Ref)
	return os.WriteFile(filepath.Join(b.Private, "refs", name), []byte(b.Head+"\n"), 0o644)
}

// Import takes into the repository what the agent made on its branch:
// every object it wrote (the commits of its branch, what it staged),
// verified by git, then its branch moved from Head to where it left it.
// Nothing else it did to refs or objects is kept. It returns where the
// branch is now ("" when it did not move). When it cannot take them, the
// agent's objects and ref are moved out of the iteration's directory,
// which is removed when the iteration ends, and the error says where.
func (b *Branch) Import(ctx context.Context) (moved string, err error) {
	if b == nil || b.Private == "" {
		return "", nil
	}
	if moved, err = b.take(ctx); err != nil {
		return "", b.keep(err)
	}
	return moved, nil
}

// take is Import's work.
func (b *Branch) take(ctx context.Context) (moved string, err error) {
	if err := b.importObjects(ctx); err != nil {
		return "", err
	}
	data, err := os.ReadFile(filepath.Join(b.Private, "refs", filepath.Base(b.Ref)))
	now := strings.TrimSpace(string(data))
	if err != nil || now == b.Head {
		return "", nil // deleted in its view, or not moved
	}
	if !git.IsHash(now) {
		return "", fmt.Errorf("the agent left its branch %s at %q, not a commit: not taken", b.Ref, now)
	}
	_, err = git.Run(ctx, git.Command{Args: []string{"update-ref", "-m", "rooda: the agent's commits", b.Ref, now, b.Head}, Env: b.env()})
	return now, err
}

// keep moves b's private directory next to the iteration's, out of what
// its end removes, so that a failed import loses nothing, and adds to
// err where it is.
func (b *Branch) keep(err error) error {
	kept, mkErr := os.MkdirTemp(filepath.Dir(filepath.Dir(b.Private)), "rooda-unimported-")
	if mkErr == nil {
		kept = filepath.Join(kept, "git")
		mkErr = os.Rename(b.Private, kept)
	}
	if mkErr != nil {
		return fmt.Errorf("%w; the agent's objects could not be kept: %v", err, mkErr)
	}
	b.Private = kept
	return fmt.Errorf("%w; the agent's objects are kept in %s and where it left its branch in %s",
		err, filepath.Join(kept, "objects"), filepath.Join(kept, "refs", filepath.Base(b.Ref)))
}

// importObjects packs the objects the agent wrote (those the overlay's
// upper layer holds, loose or packed) into a file of the private
// directory, never through memory (a commit may be larger than what git
// may print to rooda), has git verify the pack against the repository,
// then moves it into the repository's packs.
func (b *Branch) importObjects(ctx context.Context) error {
	upper := filepath.Join(b.Private, "objects")
	if !holdsFiles(upper) {
		return nil
	}
	only := append(b.env(), "GIT_OBJECT_DIRECTORY="+upper, "GIT_ALTERNATE_OBJECT_DIRECTORIES=")
	list, err := git.Run(ctx, git.Command{Args: []string{"cat-file", "--batch-all-objects", "--batch-check=%(objectname)"}, Env: only, List: true})
	if err != nil || strings.TrimSpace(list) == "" {
		return err
	}
	made, checked := filepath.Join(b.Private, "pack", "made"), filepath.Join(b.Private, "pack", "checked")
	for _, d := range []string{made, checked} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return err
		}
	}
	// Packed with the repository's objects at hand: a delta's base may
	// be one of them.
	withBase := append(b.env(), "GIT_OBJECT_DIRECTORY="+upper, "GIT_ALTERNATE_OBJECT_DIRECTORIES="+filepath.Join(b.CommonDir, "objects"))
	hash, err := git.Run(ctx, git.Command{Args: []string{"pack-objects", "-q", filepath.Join(made, "pack")}, Env: withBase, Stdin: list})
	if err != nil {
		return fmt.Errorf("the agent's objects: %w", err)
	}
	name := "pack-" + hash
	if err := b.verify(ctx, filepath.Join(made, name), filepath.Join(checked, name)); err != nil {
		return err
	}
	into := filepath.Join(b.CommonDir, "objects", "pack")
	return moveInto(into, filepath.Join(made, name+".pack"), filepath.Join(checked, name+".rev"), filepath.Join(checked, name+".idx"))
}

// verify has git read every object of the pack made (pack-objects'
// .pack and .idx) against the repository: index-pack --strict names each
// by its hash, checks its format and that what it links to exists, here
// or in the repository, and writes its own index as checked. That index
// differs from pack-objects', which takes the names it was given, when
// an object is not what its name says (a file the agent planted): then
// nothing is taken.
func (b *Branch) verify(ctx context.Context, made, checked string) error {
	args := []string{"index-pack", "--strict", "-o", checked + ".idx", made + ".pack"}
	if _, err := git.Run(ctx, git.Command{Args: args, Env: b.env()}); err != nil {
		return fmt.Errorf("the agent's objects, checked by git: %w", err)
	}
	claimed, err := os.ReadFile(made + ".idx")
	if err != nil {
		return err
	}
	found, err := os.ReadFile(checked + ".idx")
	if err != nil {
		return err
	}
	if !bytes.Equal(claimed, found) {
		return errors.New("an object the agent wrote is not what its name says: none taken")
	}
	return nil
}

// moveInto moves the files, those that exist, into dir in their order:
// the pack first, its index last, as git writes them, since git reads a
// pack once its index is there. A file that cannot be renamed there
// (another file system) is copied under a temporary name git's gc
// removes, then renamed, so that none is seen half written.
func moveInto(dir string, paths ...string) error {
	for _, p := range paths {
		if _, err := os.Stat(p); errors.Is(err, fs.ErrNotExist) && strings.HasSuffix(p, ".rev") {
			continue // written by newer gits only
		}
		to := filepath.Join(dir, filepath.Base(p))
		if os.Rename(p, to) == nil {
			continue
		}
		if err := copyInto(dir, p, to); err != nil {
			return fmt.Errorf("moving %s into the repository: %w", filepath.Base(p), err)
		}
	}
	return nil
}

// copyInto copies path to dir's file to, through a temporary file.
func copyInto(dir, path, to string) error {
	src, err := os.Open(path)
	if err != nil {
		return err
	}
	defer src.Close()
	tmp, err := os.CreateTemp(dir, "tmp_pack_")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	_, err = io.Copy(tmp, src)
	if err := cmp.Or(err, tmp.Chmod(0o444), tmp.Close()); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), to)
}

// env runs git on the repository, whatever the working directory.
func (b *Branch) env() []string { return []string{"GIT_DIR=" + b.CommonDir} }

// holdsFiles reports whether dir holds a file, however deep.
func holdsFiles(dir string) bool {
	found := errors.New("found")
	err := filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			return found
		}
		return nil
	})
	return err == found
}

// PlantedCommonDir removes a commondir file from repo's git directory
// that had none when the agent started (it could not be covered): git
// would take the repository's config from where it points. It says so,
// or "" when there was none.
func PlantedCommonDir(gitDir string, had bool) string {
	path := filepath.Join(gitDir, "commondir")
	if had || !exists(path) {
		return ""
	}
	if err := os.Remove(path); err != nil {
		return fmt.Sprintf("the agent planted %s, which could not be removed: %v; git there reads another repository's config", path, err)
	}
	return fmt.Sprintf("the agent planted %s, which points git elsewhere: removed", path)
}
