package git

import (
	"context"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// snapshot is what one look at a workspace saw.
type snapshot struct {
	head string // "" before the first commit
	// files are the files git listed: tracked ones that differ from HEAD
	// or from the index, and untracked ones, each with the state of its
	// content in the working tree. Any other file is as HEAD has it.
	files map[string]state
	// inHead are the tracked ones' states in HEAD.
	inHead map[string]state
}

// state is a file's content: its mode, as git writes it, and the hash of
// its content; the zero state is no file. An untracked file's is as git
// would record it, so that adding it to the index changes nothing.
type state struct{ mode, hash string }

// looker runs the git of a workspace's looks.
type looker struct {
	dir    string   // the workspace's directory; "" is the working directory
	top    string   // the repository's top, where the files git names are
	prefix string   // dir's path from the top, "" or ending in "/"
	env    []string // the repository as recorded (Recorded)
	repo   Repo
	// lastMoved is moved's last answer, from movedFrom to movedTo.
	lastMoved          map[string][2]state
	movedFrom, movedTo string
}

// newLooker finds dir's repository; false outside one.
func newLooker(dir string) (looker, bool) {
	r, ok := Recorded(dir)
	if !ok {
		return looker{dir: dir}, false
	}
	// git's untracked cache would make a whole look cheaper, but it lives
	// in the user's index, where a look would turn it on for their own
	// git status too, and it can go stale: the repository's own setting
	// stands.
	return looker{dir: dir, top: r.Top, prefix: r.Prefix, env: r.Env(), repo: r}, true
}

// records is the directory of rooda's own records, left out of the
// facts.
func (l *looker) records() string {
	return filepath.Join(l.top, filepath.FromSlash(l.prefix), ".rooda")
}

// head is HEAD's commit; "" before the first.
func (l *looker) head() (string, bool) {
	if head, _, ok := readHead(l.repo); ok {
		return head, true
	}
	out, err := l.run(Command{Args: []string{"rev-parse", "--verify", "--quiet", "HEAD"}})
	return out, err == nil
}

// run runs git in the workspace, on its recorded repository.
func (l *looker) run(c Command) (string, error) {
	c.Dir, c.Env, c.Timeout = l.dir, l.env, 30*time.Second
	out, err := Run(context.Background(), c)
	if err != nil && !c.List {
		return "", err
	}
	return out, err
}

// list runs a git command whose output is a list of NUL-ended entries.
func (l *looker) list(args ...string) ([]string, bool) {
	out, err := l.run(Command{Args: args, List: true})
	if err != nil {
		return nil, false
	}
	entries := strings.Split(out, "\x00")
	if entries[len(entries)-1] != "" {
		return nil, false // cut short
	}
	return entries[:len(entries)-1], true
}

// snapshot looks at the workspace, or at the paths given ("dir/" for a
// directory and all in it) when there are any; nil when git could not
// say.
func (l *looker) snapshot(paths []string) *snapshot {
	// Untracked directories stay whole (-unormal), as the untracked
	// cache, where the repository has it, keeps them; their files are
	// listed after, when there are any. Submodules are not looked into:
	// git would start git in them, on a config the agent may have made.
	args := []string{"status", "--porcelain=v2", "-z", "--branch", "--no-ahead-behind",
		"--untracked-files=normal", "--no-renames", "--ignore-submodules=all"}
	if len(paths) > 0 {
		args = append(args, "--")
		for _, p := range paths {
			args = append(args, pathspec(p))
		}
	}
	entries, ok := l.list(args...)
	if !ok {
		return nil
	}
	s := &snapshot{files: map[string]state{}, inHead: map[string]state{}}
	var dirs []string
	var worktree []string // files whose content is the working tree's
	for _, e := range entries {
		kind, rest, _ := strings.Cut(e, " ")
		switch kind {
		case "#":
			if oid, ok := strings.CutPrefix(rest, "branch.oid "); ok && oid != "(initial)" {
				s.head = oid
			}
		case "1", "u":
			f, ok := s.tracked(kind, rest)
			switch {
			case !ok:
				return nil
			case f != "" && s.inHead[f].mode != "160000" && l.isDir(f):
				// A tracked file replaced by a directory: status names
				// the file as deleted, never the files now in it.
				s.files[f] = state{}
				dirs = append(dirs, f+"/")
			case f != "":
				worktree = append(worktree, f)
			}
		case "?":
			if strings.HasSuffix(rest, "/") {
				dirs = append(dirs, rest)
				continue
			}
			s.files[rest] = state{} // its mode is the file's
			worktree = append(worktree, rest)
		default: // a rename (2) or anything else: not asked for
			return nil
		}
	}
	if len(dirs) > 0 {
		files, ok := l.untrackedIn(dirs)
		if !ok {
			return nil
		}
		for _, f := range files {
			s.files[f] = state{}
			worktree = append(worktree, f)
		}
	}
	h := hasher(s.objectFormat())
	for _, f := range worktree {
		s.files[f] = l.state(h, f, s.files[f].mode)
	}
	return s
}

// tracked notes an entry of a tracked file (1: ordinary, u: unmerged) and
// returns its name when its content must be read from the working tree.
func (s *snapshot) tracked(kind, rest string) (string, bool) {
	// 1 XY sub mH mI mW hH hI path
	// u XY sub m1 m2 m3 mW h1 h2 h3 path
	n := map[string]int{"1": 7, "u": 9}[kind] // the index of the path
	fields := strings.SplitN(rest, " ", n+1)
	if len(fields) != n+1 || len(fields[0]) != 2 || len(fields[1]) != 4 {
		return "", false
	}
	xy, f := fields[0], fields[n]
	var headMode, headHash, indexMode, indexHash, worktreeMode string
	if kind == "1" {
		headMode, indexMode, worktreeMode = fields[2], fields[3], fields[4]
		headHash, indexHash = fields[5], fields[6]
	} else {
		// Stage 2 is ours, HEAD's side; the index has no one content.
		headMode, worktreeMode, headHash = fields[3], fields[5], fields[7]
	}
	if strings.Trim(headHash, "0") != "" {
		s.inHead[f] = state{headMode, headHash}
	}
	switch {
	case kind == "1" && xy == "D.":
		s.files[f] = state{} // not in the index; listed as untracked if it is there
	case kind == "1" && xy[1] == '.':
		s.files[f] = state{indexMode, indexHash} // the working tree is as the index
	default:
		s.files[f] = state{mode: worktreeMode}
		return f, true
	}
	return "", true
}

// untrackedIn lists the untracked files in the untracked directories
// status named; a repository inside one is named as a directory.
func (l *looker) untrackedIn(dirs []string) ([]string, bool) {
	args := []string{"ls-files", "-z", "--others", "--exclude-standard", "--full-name", "--"}
	for _, d := range dirs {
		args = append(args, pathspec(d))
	}
	return l.list(args...)
}

// pathspec names a path from the top, as it is: no pattern.
func pathspec(path string) string {
	return ":(top,literal)" + strings.TrimSuffix(path, "/")
}

// isDir reports whether the file, named from the top, is a directory in
// the working tree.
func (l *looker) isDir(name string) bool {
	info, err := os.Lstat(filepath.Join(l.top, filepath.FromSlash(name)))
	return err == nil && info.IsDir()
}

// maxPaths bounds the paths one update looks at: more take a whole look,
// which costs less than a status of a few hundred paths named one by one
// (measured in an 11k-file tree: 400 paths 96 ms, a whole look 61-77 ms).
const maxPaths = 200

// update is base, a snapshot, with paths (the watch's: what changed since
// base was taken) looked at again. Any other file is as base saw it,
// unless HEAD moved: then what differs between the two HEADs is looked at
// too. The index alone changes no file's content: a file staged, or taken
// out of the index, is as it was.
func (l *looker) update(base *snapshot, paths []string) *snapshot {
	var part *snapshot
	switch {
	case len(paths) > maxPaths || slices.ContainsFunc(paths, ignoreRules):
		// Rules that ignore files changed: what base listed may be
		// ignored now, and what it left out listed.
		return l.snapshot(nil)
	case len(paths) == 0:
		head, ok := l.head()
		if head == base.head {
			return base
		}
		if !ok {
			return l.snapshot(nil) // no HEAD now, or no answer
		}
		part = &snapshot{head: head, files: map[string]state{}, inHead: map[string]state{}}
	default:
		if part = l.snapshot(paths); part == nil {
			return nil
		}
		if part.head == base.head {
			return base.with(part, paths)
		}
	}
	moved, ok := l.moved(base.head, part.head)
	if !ok {
		return nil
	}
	var more []string
	for f := range moved {
		if !covered(f, paths) {
			more = append(more, f)
		}
	}
	if len(more) > maxPaths {
		return l.snapshot(nil)
	}
	if len(more) > 0 {
		rest := l.snapshot(more)
		if rest == nil || rest.head != part.head {
			return l.snapshot(nil) // HEAD moved again meanwhile
		}
		part = part.with(rest, more)
	}
	return base.with(part, append(paths, more...))
}

// ignoreRules reports whether a path the watch saw change holds rules
// of what git ignores.
func ignoreRules(path string) bool {
	return filepath.Base(strings.TrimSuffix(path, "/")) == ".gitignore"
}

// with is s with the paths looked at again: what part says of them.
func (s *snapshot) with(part *snapshot, paths []string) *snapshot {
	out := &snapshot{head: part.head, files: map[string]state{}, inHead: map[string]state{}}
	for f, st := range s.files {
		if !covered(f, paths) {
			out.files[f] = st
		}
	}
	for f, st := range s.inHead {
		if !covered(f, paths) {
			out.inHead[f] = st
		}
	}
	maps.Copy(out.files, part.files)
	maps.Copy(out.inHead, part.inHead)
	return out
}

// covered reports whether the file is one of paths or in one of their
// directories ("dir/").
func covered(file string, paths []string) bool {
	for _, p := range paths {
		if file == p || strings.HasSuffix(p, "/") && strings.HasPrefix(file, p) {
			return true
		}
	}
	return false
}

// moved is what differs between two HEADs: each file's state in the first
// and in the second. The last answer is kept: the update that found HEAD
// moved and the iteration's changes ask the same.
func (l *looker) moved(from, to string) (map[string][2]state, bool) {
	if l.lastMoved != nil && l.movedFrom == from && l.movedTo == to {
		return l.lastMoved, true
	}
	moved, ok := l.diffTree(from, to)
	if ok {
		l.lastMoved, l.movedFrom, l.movedTo = moved, from, to
	}
	return moved, ok
}

// diffTree is moved, from git.
func (l *looker) diffTree(from, to string) (map[string][2]state, bool) {
	empty := emptyTree(len(from + to))
	if from == "" {
		from = empty
	}
	if to == "" {
		to = empty
	}
	// :mode mode hash hash status, then the path
	entries, ok := l.list("diff-tree", "-r", "-z", "--no-renames", "--no-ext-diff", "--no-textconv", from, to)
	if !ok || len(entries)%2 != 0 {
		return nil, false
	}
	moved := map[string][2]state{}
	for i := 0; i < len(entries); i += 2 {
		f := strings.Fields(strings.TrimPrefix(entries[i], ":"))
		if len(f) != 5 {
			return nil, false
		}
		moved[entries[i+1]] = [2]state{present(f[0], f[2]), present(f[1], f[3])}
	}
	return moved, true
}

// present is the state of a file of a tree: none when its hash is zeros.
func present(mode, hash string) state {
	if strings.Trim(hash, "0") == "" {
		return state{}
	}
	return state{mode, hash}
}

// emptyTree is git's tree with nothing in it, in the object format whose
// hashes are that long (SHA-1's unless SHA-256's): what a repository with
// no commit is compared from.
func emptyTree(hashLength int) string {
	if hashLength == sha256.Size*2 {
		return "6ef19b41225c5369f1c104d45d8d85efa9b057b53b14b4b9b939dd74decc5321"
	}
	return "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
}

// objectFormat is the length of the repository's hashes, from any it
// showed; 0 when it showed none (no commit, nothing tracked changed).
func (s *snapshot) objectFormat() int {
	if s.head != "" {
		return len(s.head)
	}
	for _, st := range s.inHead {
		return len(st.hash)
	}
	for _, st := range s.files {
		if st.mode != "" && len(st.hash) >= sha1.Size*2 {
			return len(st.hash)
		}
	}
	return 0
}

// hasher hashes as the repository does, so that a file's content can be
// compared with HEAD's.
func hasher(hashLength int) func() hash.Hash {
	if hashLength == sha256.Size*2 {
		return sha256.New
	}
	return sha1.New
}

// state is the state of a file in the working tree: mode is git's for a
// tracked one ("" to take it from the file). Its hash is git's unfiltered:
// of its content, or a link's target; a submodule's or a repository's is
// its HEAD. It is compared with the same file's at another look, and
// with HEAD's and the index's: a file that git filters (autocrlf, LFS)
// differs from them only when it differs from the index too. A file that
// cannot be read says so, every time alike.
func (l *looker) state(h func() hash.Hash, name, mode string) state {
	path := filepath.Join(l.top, filepath.FromSlash(strings.TrimSuffix(name, "/")))
	info, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return state{}
	case err != nil:
		return state{mode, "unreadable"}
	}
	if mode == "" {
		mode = gitMode(info.Mode())
	}
	if info.IsDir() {
		// A submodule, or a repository among the untracked files: its
		// HEAD, as git records a submodule.
		if head, ok := OutputIn(path, "", "rev-parse", "HEAD"); ok {
			return state{mode, head}
		}
		return state{mode, "repository"}
	}
	if !info.Mode().IsRegular() && info.Mode()&fs.ModeSymlink == 0 {
		// A pipe or a device: opening it could wait for ever.
		return state{mode, "special " + info.Mode().Type().String()}
	}
	w := h()
	if info.Mode()&fs.ModeSymlink != 0 {
		target, err := os.Readlink(path)
		if err != nil {
			return state{mode, "unreadable"}
		}
		fmt.Fprintf(w, "blob %d\x00%s", len(target), target)
		return state{mode, hex.EncodeToString(w.Sum(nil))}
	}
	file, err := os.Open(path)
	if err != nil {
		return state{mode, "unreadable"}
	}
	defer file.Close()
	fmt.Fprintf(w, "blob %d\x00", info.Size())
	if n, err := io.Copy(w, file); err != nil || n != info.Size() {
		return state{mode, "unreadable"} // read as it was being written
	}
	return state{mode, hex.EncodeToString(w.Sum(nil))}
}

// gitMode is the mode git records for a file of that mode.
func gitMode(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return "120000"
	case m.IsDir():
		return "160000"
	case m&0o100 != 0:
		return "100755"
	}
	return "100644"
}
