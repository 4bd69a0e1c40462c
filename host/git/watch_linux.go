package git

import (
	"encoding/binary"
	"errors"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/sys/unix"
)

// watch tells what in a working tree changed since it last asked: inotify
// on each of its directories, .git and rooda's records left out. What it
// cannot tell (too many directories, a queue that overflowed) is all.
type watch struct {
	fd   int
	top  string
	skip []string         // directories not watched, besides each .git
	dirs map[int32]string // each watch's directory
	// broken is set once a directory could not be watched: from then on
	// all changed, always.
	broken bool
}

// watchMask is every change of a directory's entries or of a file's
// content or mode; reading (rooda's hashes) is none.
const watchMask = unix.IN_MODIFY | unix.IN_ATTRIB | unix.IN_CLOSE_WRITE | unix.IN_CREATE |
	unix.IN_DELETE | unix.IN_DELETE_SELF | unix.IN_MOVE_SELF | unix.IN_MOVED_FROM | unix.IN_MOVED_TO |
	unix.IN_ONLYDIR | unix.IN_DONT_FOLLOW

// maxWatched bounds the directories watched (and walked to watch them):
// a tree with more is looked at anew before each iteration.
const maxWatched = 20000

var errTooMany = errors.New("too many directories to watch")

// newWatch watches top and every directory in it but skip's; nil where it
// cannot.
func newWatch(top string, skip ...string) *watch {
	fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil {
		return nil
	}
	w := &watch{fd: fd, top: top, skip: skip, dirs: map[int32]string{}}
	if w.add(top); w.broken {
		w.close()
		return nil
	}
	return w
}

// add watches dir and the directories in it.
func (w *watch) add(dir string) {
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			// Gone already (its removal is an event), or unreadable,
			// as it is to git.
			return nil
		case !d.IsDir():
			return nil
		case d.Name() == ".git" || slices.Contains(w.skip, path):
			return filepath.SkipDir
		case len(w.dirs) >= maxWatched:
			return errTooMany
		}
		wd, err := unix.InotifyAddWatch(w.fd, path, watchMask)
		if errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ENOTDIR) {
			return filepath.SkipDir // gone or replaced: an event says so
		}
		if err != nil {
			return err
		}
		w.dirs[int32(wd)] = path
		return nil
	})
	if err != nil {
		w.broken = true
	}
}

// changes reads the events that came since it last did: the paths that
// changed, from the top ("dir/" for a directory made, moved or removed,
// and all in it), or all when it cannot tell. A directory made meanwhile
// is watched from now on.
func (w *watch) changes() (paths []string, all bool) {
	buf := make([]byte, 64<<10)
	seen := map[string]bool{}
	for {
		n, err := unix.Read(w.fd, buf)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if n <= 0 {
			if !errors.Is(err, unix.EAGAIN) {
				w.broken = true
			}
			return paths, all || w.broken
		}
		for off := 0; off+unix.SizeofInotifyEvent <= n; {
			wd := int32(binary.NativeEndian.Uint32(buf[off:]))
			mask := binary.NativeEndian.Uint32(buf[off+4:])
			size := int(binary.NativeEndian.Uint32(buf[off+12:]))
			name := strings.TrimRight(string(buf[off+unix.SizeofInotifyEvent:off+unix.SizeofInotifyEvent+size]), "\x00")
			off += unix.SizeofInotifyEvent + size
			dir, known := w.dirs[wd]
			switch {
			case mask&unix.IN_Q_OVERFLOW != 0:
				// Events were lost, directories made among them too.
				all = true
				w.add(w.top)
				continue
			case mask&unix.IN_IGNORED != 0:
				delete(w.dirs, wd) // its directory went away, as another event says
				continue
			case !known:
				all = true // cannot be
				continue
			case name == "":
				name, dir = filepath.Base(dir), filepath.Dir(dir) // the directory itself
				mask |= unix.IN_ISDIR
			}
			path := filepath.Join(dir, name)
			if name == ".git" || slices.Contains(w.skip, path) {
				continue
			}
			if mask&unix.IN_ISDIR != 0 && mask&(unix.IN_CREATE|unix.IN_MOVED_TO) != 0 {
				w.add(path)
			}
			rel, err := filepath.Rel(w.top, path)
			if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
				all = true
				continue
			}
			rel = filepath.ToSlash(rel)
			if mask&unix.IN_ISDIR != 0 {
				rel += "/"
			}
			if !seen[rel] {
				seen[rel] = true
				paths = append(paths, rel)
			}
		}
	}
}

func (w *watch) close() {
	unix.Close(w.fd)
}
