package libs

import (
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

	"rooda/host/files"
)

// hashDir is the SHA-256 of a directory's regular files and symbolic
// links, in path order, so that the same files give the same hash on
// every machine: each file's path (with /) and content, each link's path
// and target as git stores it, so that repointing a link changes the
// hash as editing a file does.
func hashDir(dir string) (string, error) {
	return hashEntries(dir, func(fs.DirEntry) bool { return true })
}

// hashBeforeLinks is the hash rooda pinned before hashDir covered
// symbolic links: of the regular files alone, and of nothing when dir is
// itself a link, which that walk did not follow. Such a pin of a library
// with links no longer verifies, and is told apart from an edited one.
func hashBeforeLinks(dir string) (string, error) {
	info, err := os.Lstat(dir)
	if err != nil {
		return "", err
	}
	if info.Mode()&fs.ModeSymlink != 0 {
		return hex.EncodeToString(sha256.New().Sum(nil)), nil
	}
	return hashEntries(dir, func(d fs.DirEntry) bool { return d.Type().IsRegular() })
}

// hashEntries hashes the entries of dir that keep keeps.
func hashEntries(dir string, keep func(fs.DirEntry) bool) (string, error) {
	h := sha256.New()
	err := eachEntry(dir, func(rel string, d fs.DirEntry) error {
		if !keep(d) {
			return nil
		}
		return writeEntry(h, dir, rel, d)
	})
	if err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// eachEntry calls fn with the path (with /) of each regular file and
// symbolic link below dir, in the order of those whole paths: the order
// the first pins hashed their files in, so that they stay valid. It is not
// the order of a walk, which finishes lib/ before it reaches lib.star. A
// link below dir is not followed; dir itself is, so that a library whose
// path is a link in its repository is hashed by its files. A dir that does
// not exist has no entries.
func eachEntry(dir string, fn func(rel string, d fs.DirEntry) error) error {
	entries, err := entriesBelow(files.Canonical(dir))
	if err != nil {
		return err
	}
	slices.SortFunc(entries, func(a, b entry) int { return strings.Compare(a.rel, b.rel) })
	for _, e := range entries {
		if err := fn(e.rel, e.d); err != nil {
			return err
		}
	}
	return nil
}

// entry is a regular file or symbolic link of a directory being hashed.
type entry struct {
	rel string // the path below the directory, with /
	d   fs.DirEntry
}

// entriesBelow lists the regular files and symbolic links below dir, in
// the order of the walk.
func entriesBelow(dir string) ([]entry, error) {
	var entries []entry
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.Type().IsRegular() && d.Type()&fs.ModeSymlink == 0 {
			return nil
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		entries = append(entries, entry{filepath.ToSlash(rel), d})
		return nil
	})
	if errors.Is(err, fs.ErrNotExist) {
		if _, statErr := os.Lstat(dir); errors.Is(statErr, fs.ErrNotExist) {
			return nil, nil
		}
	}
	return entries, err
}

// writeEntry writes one entry as the hash covers it. A file is its path,
// a NUL, its content and a NUL (the form of the first pins, which stay
// valid); a link starts with a NUL, which no path does, so that no file
// reads as one.
func writeEntry(h hash.Hash, dir, rel string, d fs.DirEntry) error {
	path := filepath.Join(dir, filepath.FromSlash(rel))
	if d.Type()&fs.ModeSymlink != 0 {
		target, err := os.Readlink(path)
		if err != nil {
			return err
		}
		io.WriteString(h, "\x00symlink "+rel+"\x00"+target+"\x00")
		return nil
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	io.WriteString(h, rel+"\x00")
	if _, err := io.Copy(h, f); err != nil {
		return err
	}
	h.Write([]byte{0})
	return nil
}

// digests is the SHA-256 of each entry of dir, by path.
func digests(dir string) (map[string]string, error) {
	sums := map[string]string{}
	err := eachEntry(dir, func(rel string, d fs.DirEntry) error {
		h := sha256.New()
		if err := writeEntry(h, dir, rel, d); err != nil {
			return err
		}
		sums[rel] = hex.EncodeToString(h.Sum(nil))
		return nil
	})
	return sums, err
}

// difference is how a copy of a library's files differs from git's.
type difference struct {
	changed, added, removed []string
}

// differ compares the files in have with git's in want.
func differ(want, have string) (difference, error) {
	var d difference
	wanted, err := digests(want)
	if err != nil {
		return d, err
	}
	had, err := digests(have)
	if err != nil {
		return d, err
	}
	for _, rel := range slices.Sorted(maps.Keys(wanted)) {
		switch sum, ok := had[rel]; {
		case !ok:
			d.removed = append(d.removed, rel)
		case sum != wanted[rel]:
			d.changed = append(d.changed, rel)
		}
	}
	for _, rel := range slices.Sorted(maps.Keys(had)) {
		if _, ok := wanted[rel]; !ok {
			d.added = append(d.added, rel)
		}
	}
	return d, nil
}

func (d difference) none() bool { return len(d.changed)+len(d.added)+len(d.removed) == 0 }

// String is "changed: a.star; added: b.star; removed: c.md".
func (d difference) String() string {
	var parts []string
	for _, kind := range []struct {
		name  string
		paths []string
	}{{"changed", d.changed}, {"added", d.added}, {"removed", d.removed}} {
		if len(kind.paths) > 0 {
			parts = append(parts, fmt.Sprintf("%s: %s", kind.name, strings.Join(kind.paths, ", ")))
		}
	}
	return strings.Join(parts, "; ")
}
