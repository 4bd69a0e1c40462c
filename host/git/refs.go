package git

import (
	"errors"
	"os"
	"path/filepath"
	"strings"

	"rooda/host/files"
)

// An iteration asks git of HEAD twice and keeps a ref of its start (the
// snapshot): a process each, a millisecond each, where the agent may take
// less. So the plain cases are read and written here, as git's files
// backend keeps them: HEAD naming a branch whose loose ref holds a
// commit, or a commit itself; a loose ref of rooda's own written and
// removed. Anything else (a packed ref, a reftable, a ref that names
// another) is left to git, which knows every case: these answer false.

// maxRefFile bounds what a ref's file may hold: a hash, or a ref's name.
const maxRefFile = 4096

// readRefFile reads name, a small file below the git directory dir, as
// the record's files are read (files.ReadBelow): no link followed, no
// pipe waited on, no more than a ref holds.
func readRefFile(dir, name string) (string, bool) {
	data, err := files.ReadBelow(dir, filepath.FromSlash(name), maxRefFile)
	if err != nil {
		return "", false
	}
	return strings.TrimSuffix(string(data), "\n"), true
}

// IsHash reports whether s is an object's name as git writes it: SHA-1's
// or SHA-256's hex, in lower case.
func IsHash(s string) bool { return (len(s) == 40 || len(s) == 64) && lowerHex(s) }

// IsHashPrefix reports whether s could name a commit as git abbreviates
// it: 7 to 64 digits of lower-case hex.
func IsHashPrefix(s string) bool { return len(s) >= 7 && len(s) <= 64 && lowerHex(s) }

func lowerHex(s string) bool { return strings.Trim(s, "0123456789abcdef") == "" }

// readHead is HEAD's commit and the branch it is on ("" when detached),
// read from r's files; false where git must say (HEAD's branch has no
// loose ref: packed, not born yet, or a reftable's).
func readHead(r Repo) (head, branch string, ok bool) {
	text, ok := readRefFile(r.GitDir, "HEAD")
	if !ok {
		return "", "", false
	}
	if IsHash(text) {
		return text, "", true
	}
	branch, ok = strings.CutPrefix(text, "ref: ")
	if !ok || !plainRef(branch, "refs/heads/") {
		return "", "", false
	}
	head, ok = readRefFile(r.CommonDir, branch)
	if !ok || !IsHash(head) {
		return "", "", false
	}
	return head, branch, true
}

// plainRef reports whether name is a ref below prefix that names a file
// of the git directory as it is: no part that climbs out or hides.
func plainRef(name, prefix string) bool {
	rest, ok := strings.CutPrefix(name, prefix)
	if !ok || rest == "" {
		return false
	}
	for _, part := range strings.Split(rest, "/") {
		if part == "" || part[0] == '.' || strings.HasSuffix(part, ".lock") {
			return false
		}
	}
	return true
}

// looseRefs reports whether r keeps its refs as files: not in a
// reftable.
func looseRefs(r Repo) bool {
	_, err := os.Lstat(filepath.Join(r.CommonDir, "reftable"))
	return errors.Is(err, os.ErrNotExist)
}

// writeRef points rooda's ref (refs/rooda/…) at commit, as git would: a
// file written beside it and renamed over it. false where git must.
func writeRef(r Repo, ref, commit string) bool {
	if !plainRef(ref, "refs/rooda/") || !IsHash(commit) || !looseRefs(r) {
		return false
	}
	path := filepath.Join(r.CommonDir, filepath.FromSlash(ref))
	if os.MkdirAll(filepath.Dir(path), 0o755) != nil {
		return false
	}
	// The lock is git's: one that exists is a git at work on the ref
	// (a gc packing it), left to git.
	lock := path + ".lock"
	if files.CreateNew(lock, []byte(commit+"\n"), 0o644) != nil {
		return false
	}
	if files.Rename(lock, path) != nil {
		os.Remove(lock)
		return false
	}
	return true
}

// removeRef removes rooda's loose ref, under git's lock; false where
// git must: no loose ref to remove, or the ref in packed-refs too (a gc
// packed it: removing the loose one would bring the packed one back), or
// a log of it kept (core.logAllRefUpdates). Its directories stay
// (DropRef).
func removeRef(r Repo, ref string) bool {
	if !plainRef(ref, "refs/rooda/") || !looseRefs(r) || packed(r, ref) {
		return false
	}
	if _, err := os.Lstat(filepath.Join(r.CommonDir, "logs", filepath.FromSlash(ref))); !errors.Is(err, os.ErrNotExist) {
		return false
	}
	path := filepath.Join(r.CommonDir, filepath.FromSlash(ref))
	if files.CreateNew(path+".lock", nil, 0o644) != nil {
		return false
	}
	removed := os.Remove(path) == nil
	os.Remove(path + ".lock")
	return removed
}

// maxPackedRefs bounds the packed-refs read to look for a ref of
// rooda's: a bigger one is left to git.
const maxPackedRefs = 4 << 20

// packed reports whether ref may be in r's packed-refs: it is, or the
// file cannot be read whole.
func packed(r Repo, ref string) bool {
	path := filepath.Join(r.CommonDir, "packed-refs")
	info, err := os.Lstat(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return false
	case err != nil || !info.Mode().IsRegular() || info.Size() > maxPackedRefs:
		return true
	}
	data, err := os.ReadFile(path)
	return err != nil || strings.Contains(string(data), " "+ref+"\n")
}

// hasLooseObject reports whether commit is a loose object of r: one that
// a gc may have packed, or pruned, is asked of git.
func hasLooseObject(r Repo, commit string) bool {
	if !IsHash(commit) {
		return false
	}
	_, err := os.Lstat(filepath.Join(r.CommonDir, "objects", commit[:2], commit[2:]))
	return err == nil
}
