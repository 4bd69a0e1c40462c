package files

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// WriteWhole writes data to path under a temporary name in its directory
// and renames it into place: a reader, or a rooda killed midway, finds
// the file as it was or as it is now, never half written.
func WriteWhole(path string, data []byte) error { return writeWhole(path, data, false) }

// WriteWholeSynced is WriteWhole for a file that must outlive a power
// loss as well as a crash: its bytes reach the disk (fsync) before it
// takes its name.
func WriteWholeSynced(path string, data []byte) error { return writeWhole(path, data, true) }

// WriteWholeOpen is WriteWhole that returns the file written still
// open, for SyncClose to force to the disk later, without opening it
// again by its name.
func WriteWholeOpen(path string, data []byte) (*os.File, error) {
	f, err := createTemp(filepath.Dir(path), data, false)
	if err != nil {
		return nil, err
	}
	if err = Rename(f.Name(), path); err != nil {
		os.Remove(f.Name())
		f.Close()
		return nil, err
	}
	return f, nil
}

// writeWhole writes path whole, fsynced if sync, readable and writable
// by its owner alone: openTemp makes it so, and no chmod follows
// (one cost a record 30 µs a file on a disk, docs/performance.md).
func writeWhole(path string, data []byte, sync bool) error {
	tmp, err := writeTemp(filepath.Dir(path), data, sync)
	if err != nil {
		return err
	}
	if err = Rename(tmp, path); err != nil {
		os.Remove(tmp)
	}
	return err
}

// ErrReadOnly is why Replace refused a file no one may write: its owner
// made it so.
var ErrReadOnly = errors.New("it is read-only")

// Replace is WriteWholeSynced for a file that exists, a person's: the
// new one keeps its mode and, where the file is another user's, its
// owner; a link is followed, its target replaced. A file no one may
// write is refused (ErrReadOnly) unless readOnlyToo. Where the owner
// cannot be kept (another user's file in a directory this user may
// write, rooda not root), the file is written in place, as an editor
// writes it, keeping owner and mode.
func Replace(path string, data []byte, readOnlyToo bool) error {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return err
	}
	info, err := os.Stat(real)
	if err != nil {
		return err
	}
	if info.Mode().Perm()&0o222 == 0 && !readOnlyToo {
		return &fs.PathError{Op: "replace", Path: path, Err: ErrReadOnly}
	}
	tmp, err := writeTemp(filepath.Dir(real), data, true)
	if err != nil {
		return err
	}
	if err = os.Chmod(tmp, info.Mode().Perm()); err == nil {
		err = keepOwner(tmp, info)
	}
	if errors.Is(err, fs.ErrPermission) {
		os.Remove(tmp)
		return writeInPlace(real, data)
	}
	if err == nil {
		err = os.Rename(tmp, real)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}

// writeInPlace writes data over the file at path, synced.
func writeInPlace(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	return errors.Join(err, f.Close())
}

// WriteTemp writes data whole to a new file of dir and returns its name,
// which begins with a dot: no reader that passes over dot-files takes it
// for one of its own. A write that fails leaves nothing.
func WriteTemp(dir string, data []byte) (string, error) { return writeTemp(dir, data, false) }

func writeTemp(dir string, data []byte, sync bool) (string, error) {
	tmp, err := createTemp(dir, data, sync)
	if err != nil {
		return "", err
	}
	if err = tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return "", err
	}
	return tmp.Name(), nil
}

// createTemp is writeTemp with the file left open.
func createTemp(dir string, data []byte, sync bool) (*os.File, error) {
	tmp, err := openTemp(dir)
	if err != nil {
		return nil, err
	}
	err = writePieces(tmp, data)
	if err == nil && sync {
		err = tmp.Sync()
	}
	if err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return nil, err
	}
	return tmp, nil
}

// maxPiece bounds each write of a file rooda makes. Linux (ext4 from
// 6.16) caches a file that one write fills 2 MiB at a time (large
// folios), and on the development VM the first touch of such fresh
// blocks was slow (likely its host taking back free memory 2 MiB at a
// time): a 10 MiB output.txt written at once took 30 ms, in pieces of
// 1 MiB 2.5 ms (docs/performance.md).
const maxPiece = 1 << 20

// writePieces writes data to f in pieces of at most maxPiece bytes.
func writePieces(f *os.File, data []byte) error {
	for len(data) > 0 {
		n, err := f.Write(data[:min(len(data), maxPiece)])
		if err != nil {
			return err
		}
		data = data[n:]
	}
	return nil
}

// Lock opens the lock file at path, making it if need be, and takes its
// lock (TryLock), held until the file is closed or the process ends:
// busy, and no file, when another holds it.
func Lock(path string) (f *os.File, busy bool, err error) {
	f, err = os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, false, err
	}
	if busy, err = TryLock(f); err != nil || busy {
		f.Close()
		return nil, busy, err
	}
	return f, false, nil
}

// OpenAll opens the files at paths for SyncClose, as OpenBelow does: a
// record's files a resume found, which the rooda that wrote them may not
// have forced to the disk. No link at a path is followed, only a regular
// file is opened, and a file gone is passed over: nothing of it is left
// to keep. It returns those it could open, with why it could not the
// others.
func OpenAll(paths []string) ([]*os.File, error) {
	var opened []*os.File
	var errs []error
	for _, path := range paths {
		f, err := OpenBelow(filepath.Dir(path), filepath.Base(path))
		if err == nil {
			opened = append(opened, f)
		} else if !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	return opened, errors.Join(errs...)
}

// CloseAll closes the files, which are not to be forced to the disk: a
// record's files that no end names.
func CloseAll(opened []*os.File) error {
	var errs []error
	for _, f := range opened {
		errs = append(errs, f.Close())
	}
	return errors.Join(errs...)
}

// SyncClose forces the open files to the disk, their writeback begun
// together first (StartWriteback), so that on a journaling file system
// one commit takes them all, and closes them: a record's files,
// kept open since they were written (WriteWholeOpen), so that forcing
// them costs no second open of each by its name, nor of its directory
// (docs/performance.md, "The record on a disk").
func SyncClose(opened []*os.File) error {
	for _, f := range opened {
		StartWriteback(f)
	}
	var errs []error
	for _, f := range opened {
		errs = append(errs, f.Sync(), f.Close())
	}
	return errors.Join(errs...)
}
