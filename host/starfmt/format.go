package starfmt

import (
	"bytes"

	"rooda/host/files"
)

// Rewrite formats the file at path and reports whether that changes it.
// It reads the file as a script is read (files.Read: bounded, a named
// pipe not waited on). Unless check is set, a file that changes is
// replaced whole (files.Replace: with its mode and owner, through a link
// to its target, synced before it takes the name), so that no crash
// leaves half a script; one that could not be replaced is not changed,
// nor a read-only one unless readOnlyToo.
func Rewrite(path string, check, readOnlyToo bool) (changed bool, err error) {
	if linked == nil {
		return false, ErrNotLinked
	}
	src, err := files.Read(path, files.ScriptLimit)
	if err != nil {
		return false, err
	}
	out, err := linked.Format(path, src)
	if err != nil || bytes.Equal(out, src) {
		return false, err
	}
	if check {
		return true, nil
	}
	if err := files.Replace(path, out, readOnlyToo); err != nil {
		return false, err
	}
	return true, nil
}
