package fleet

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"rooda/host/files"
	"rooda/host/journal"
	"rooda/host/runlog"
)

// A run's record is written through to the fleet's object store as its
// rooda writes it in the workspace, which stays the working copy: a
// worker on another machine that takes the run over downloads it and
// resumes it from its journal. rooda links no NATS package, so the
// worker does it, by watching the record's directory.
//
// Each object is named after the run, its record's id and the file's
// path in the record: "NAME/ID/run.json", "NAME/ID/iterations/0001/meta.json".
// rooda writes those files whole (a rename), so each is uploaded whole
// when it appears or changes. The journal only grows: it is uploaded in
// pieces of the entries appended since the last one,
// "NAME/ID/journal.jsonl@OFFSET.ATTEMPT", so that a run of many
// iterations does not send its journal again at each; a download joins
// the pieces in the order of their offsets, up to the first gap, taking
// at each offset the piece of the newest attempt, and none of an older
// attempt after a newer one's (chain).

// writeThroughEvery is how often a worker looks at the record of a run
// going on: a stat of its journal, the rest only when it grew. An entry
// is in the store within this time of its append, so a worker killed
// loses at most the entries of its last moments, not the iterations
// that ended before.
const writeThroughEvery = 200 * time.Millisecond

const journalPiece = journal.Name + "@"

// recordCopy writes the record of one run, in the runs directory of its
// workspace, through to the store.
type recordCopy struct {
	obs  jetstream.ObjectStore
	name string // the run's
	runs string // the workspace's runs directory (.rooda/runs)
	id   string // the record's, once there is one
	// journalAt is how much of the journal the store holds.
	journalAt int64
	// attempt is the lease's attempt of the worker writing: its pieces
	// are named after it (pieceName).
	attempt int
	// tail is the last entry of the journal as the store holds it, to
	// tell a journal that goes on from one written anew (goesOn);
	// dropOld says the store still holds the pieces of the one before.
	tail    []byte
	dropOld bool
	// sent is each other file as it was when uploaded.
	sent map[string]fileMark
	// held says whether the worker still holds the run: nothing is
	// written once another took it over.
	held func(context.Context) error
	// beforeJournal, if set, is given the entries of each piece of the
	// journal before it is uploaded: the workspace is pushed there
	// first, so that the store's journal never names an iteration whose
	// work the remote lacks. errNotYet holds the piece back.
	beforeJournal func(ctx context.Context, id string, entries []journal.Entry) error
}

// fileMark is what a look knows a file by: rooda writes each file of a
// record by a rename, a new inode, so one rewritten to the same size
// within the file system's clock tick is still told apart.
type fileMark struct {
	size  int64
	mod   time.Time
	inode uint64
}

// markOf is the mark of a file's facts.
func markOf(info fs.FileInfo) fileMark {
	m := fileMark{size: info.Size(), mod: info.ModTime()}
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		m.inode = st.Ino
	}
	return m
}

// errNotYet holds a piece of the journal back until the next look.
var errNotYet = errors.New("not yet")

// newRecordCopy is the copy of run name's record kept in runs, going on
// from what the store holds already (a run taken over, whose record a
// worker wrote through before).
func (f *Fleet) newRecordCopy(ctx context.Context, name, runs string, held func(context.Context) error) (*recordCopy, error) {
	c := &recordCopy{obs: f.records, name: name, runs: runs, sent: map[string]fileMark{}, held: held}
	stored, err := storedRecords(ctx, f.records, name)
	if err != nil {
		return nil, err
	}
	if id := lastID(stored); id != "" {
		c.id, c.journalAt = id, stored[id].journalLength()
		if chain := stored[id].chain(); len(chain) > 0 {
			last, err := f.records.GetBytes(ctx, stored[id].pieceObject(name+"/"+id+"/", chain[len(chain)-1]))
			if err != nil {
				return nil, err
			}
			if len(last) > 0 {
				c.tail = lastLine(last)
			}
		}
	}
	return c, nil
}

// sync uploads what changed in the record since the last sync: nothing
// unless its journal grew, or all is true (the run ended: its last
// writes).
func (c *recordCopy) sync(ctx context.Context, all bool) error {
	c.followNewest()
	if c.id == "" {
		return nil // no record yet
	}
	piece, rewritten, err := c.newEntries()
	if err != nil || len(piece) == 0 && !all {
		return err
	}
	if c.held != nil {
		if err := c.held(ctx); err != nil {
			return err
		}
	}
	if rewritten {
		// The new journal's pieces go up before the old are dropped:
		// a worker killed between the two leaves the store a journal.
		c.journalAt, c.tail, c.dropOld = 0, nil, true
	}
	if c.beforeJournal != nil && len(piece) > 0 {
		entries, _ := journal.Parse(piece)
		if err := c.beforeJournal(ctx, c.id, entries); errors.Is(err, errNotYet) {
			piece = nil
		} else if err != nil {
			return err
		}
	}
	// The files first: the journal names iterations whose files are
	// there.
	if err := c.syncFiles(ctx); err != nil {
		return err
	}
	if len(piece) == 0 {
		return nil
	}
	if _, err := c.obs.PutBytes(ctx, c.pieceName(c.journalAt), piece); err != nil {
		return err
	}
	c.journalAt += int64(len(piece))
	c.tail = lastLine(piece)
	if c.dropOld {
		if err := c.dropPieces(ctx, c.pieceName(0)); err != nil {
			return err
		}
		c.dropOld = false
	}
	return nil
}

// lastLine is the last line of data, which ends with one.
func lastLine(data []byte) []byte {
	return bytes.Clone(data[bytes.LastIndexByte(data[:len(data)-1], '\n')+1:])
}

// followNewest makes the copy that of the newest record in runs when
// it is newer than the one it copies: rooda started a record anew (one
// it could not resume), which is the run's now. A look reads the runs
// directory's names only (a record's run.json is read once it is newer).
func (c *recordCopy) followNewest() {
	entries, err := os.ReadDir(c.runs)
	if err != nil {
		return
	}
	newest := ""
	for _, e := range entries {
		if name := e.Name(); e.IsDir() && runlog.IsID(name) && name > c.id && name > newest {
			newest = name
		}
	}
	if newest == "" {
		return
	}
	if ids, err := runlog.IDs(c.runs); err != nil || !slices.Contains(ids, newest) {
		return // not a record (yet): no run.json
	}
	c.id, c.journalAt, c.tail, c.dropOld = newest, 0, nil, false
	c.sent = map[string]fileMark{}
}

// newEntries are the whole entries appended to the record's journal since
// the last piece uploaded. A journal shorter than that was written anew
// (a resume that cut a damaged end): it is given whole, rewritten, to
// be uploaded from its start in place of the old one's pieces.
func (c *recordCopy) newEntries() (piece []byte, rewritten bool, err error) {
	f, err := files.OpenBelow(c.runs, filepath.Join(c.id, journal.Name))
	if errors.Is(err, fs.ErrNotExist) || isRefused(err) {
		return nil, false, nil // none yet, or none of rooda's (syncDir)
	}
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil || !info.Mode().IsRegular() || info.Size() == c.journalAt {
		return nil, false, err
	}
	if info.Size() > journal.Limit {
		return nil, false, files.TooLarge(f.Name(), journal.Limit)
	}
	from := c.journalAt
	if info.Size() < from || !c.goesOn(f) {
		from, rewritten = 0, true
	}
	data, err := io.ReadAll(io.NewSectionReader(f, from, info.Size()-from))
	if err != nil {
		return nil, false, err
	}
	_, good := journal.Parse(data)
	return data[:good], rewritten, nil
}

// goesOn reports whether the journal f still holds, just before the
// offset the store's ends at, the store's last entry: a journal written
// anew (a resume that cut a damaged end, then appended past the old
// length) is known by its content, not its size alone.
func (c *recordCopy) goesOn(f *os.File) bool {
	if len(c.tail) == 0 || c.journalAt < int64(len(c.tail)) {
		return true // nothing known to compare
	}
	buf := make([]byte, len(c.tail))
	_, err := f.ReadAt(buf, c.journalAt-int64(len(c.tail)))
	return err == nil && bytes.Equal(buf, c.tail)
}

// dropPieces deletes the journal's pieces in the store but keep: a
// download joins pieces by offset, and those of a journal written anew
// must not follow its new ones.
func (c *recordCopy) dropPieces(ctx context.Context, keep string) error {
	stored, err := storedRecords(ctx, c.obs, c.name)
	if err != nil {
		return err
	}
	for _, name := range stored[c.id].pieceNames {
		if name == keep {
			continue
		}
		if err := c.obs.Delete(ctx, name); err != nil && !errors.Is(err, jetstream.ErrObjectNotFound) {
			return err
		}
	}
	return nil
}

// syncFiles uploads the record's files, but its journal, that are new
// or changed since they were last. Names that begin with a dot are
// rooda's own (its lock, files being written) and stay. rooda writes
// each file by a rename into its directory, which changes the
// directory's time: a directory of files alone (an iteration's) whose
// time did not change since a look sent all it held is not looked into
// again, so a look costs a stat per iteration, not per file. One that
// holds directories is looked into every time: a file made in one of
// them changes that one's time, not its own.
func (c *recordCopy) syncFiles(ctx context.Context) error {
	var look filesLook
	if _, err := c.walk(&look, "."); err != nil {
		return err
	}
	return c.upload(ctx, look)
}

// filesLook is what one look at the record found to upload: its files
// changed since they were last sent, and its directories, each marked
// sent once every file found under it was.
type filesLook struct {
	files, dirs []string
	marks       map[string]fileMark
}

func (l *filesLook) add(list *[]string, path string, mark fileMark) {
	if l.marks == nil {
		l.marks = map[string]fileMark{}
	}
	*list = append(*list, path)
	l.marks[path] = mark
}

// walk lists what changed in the directory rel of the record, and under
// it. The record lies in the workspace, where the agent writes: like
// rooda's own reader (runlog's openRecord), the look follows no symbolic
// link, from the runs directory down, and reads regular files only, each
// up to a limit, so that a link left there to ~/.ssh/id_ed25519 is not
// uploaded for every client of the fleet to read, nor a named pipe keeps
// the look waiting for ever.
func (c *recordCopy) walk(look *filesLook, rel string) (holdsDirs bool, err error) {
	d, err := files.OpenBelow(c.runs, filepath.Join(c.id, rel))
	if errors.Is(err, fs.ErrNotExist) || isRefused(err) {
		return false, nil // removed since it was listed, or not the record's
	}
	if err != nil {
		return false, err
	}
	entries, err := d.ReadDir(-1)
	d.Close()
	if err != nil {
		return false, err
	}
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, ".") || rel == "." && name == journal.Name {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue // removed meanwhile
		}
		path, mark := filepath.Join(rel, name), markOf(info)
		holdsDirs = holdsDirs || e.IsDir()
		switch {
		case c.sent[path] == mark:
		case e.IsDir():
			deeper, err := c.walk(look, path)
			if err != nil {
				return holdsDirs, err
			}
			// A directory's time may be coarse (a second, on some
			// file systems): one changed twice within a tick would
			// look unchanged, so a directory is passed over only once
			// its time is older than that.
			if !deeper && time.Since(mark.mod) > coarseClock {
				look.add(&look.dirs, path, mark)
			}
		case info.Mode().IsRegular():
			look.add(&look.files, path, mark)
		default:
			// A link, a pipe, a device: not the record's, never read.
		}
	}
	return holdsDirs, nil
}

// uploads bounds the files of a look uploaded at once: each put waits
// for the server's acknowledgement, about a millisecond on one machine,
// and an iteration has three.
const uploads = 8

// upload sends the files of a look, uploads at a time, and marks sent
// those that were, and the directories all of whose files were: what
// failed, or could not be read this time, is looked at again next time.
func (c *recordCopy) upload(ctx context.Context, look filesLook) error {
	sent := make([]bool, len(look.files))
	errs := make([]error, len(look.files))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(uploads, len(look.files)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				sent[i], errs[i] = c.syncFile(ctx, look.files[i])
			}
		}()
	}
	for i := range look.files {
		next <- i
	}
	close(next)
	wg.Wait()
	unsent := map[string]bool{}
	for i, path := range look.files {
		if sent[i] && errs[i] == nil {
			c.sent[path] = look.marks[path]
			continue
		}
		for dir := filepath.Dir(path); dir != "."; dir = filepath.Dir(dir) {
			unsent[dir] = true
		}
	}
	for _, dir := range look.dirs {
		if !unsent[dir] {
			c.sent[dir] = look.marks[dir]
		}
	}
	return errors.Join(errs...)
}

// recordFileLimit bounds a file of a record read to be uploaded: an
// iteration's prompt, output or transcript, as runs show reads them.
const recordFileLimit = files.RecordedPromptLimit

// syncFile uploads the record's file at path, read as syncDir says;
// sent is false for a file that could not be read but may be at the
// next look (replaced meanwhile), true for one sent or refused for good.
func (c *recordCopy) syncFile(ctx context.Context, path string) (sent bool, err error) {
	data, err := c.readFile(path, recordFileLimit)
	if err != nil {
		var tooLarge *files.TooLargeError
		return isRefused(err) || errors.As(err, &tooLarge), nil
	}
	_, err = c.obs.PutBytes(ctx, c.name+"/"+c.id+"/"+filepath.ToSlash(path), data)
	return err == nil, err
}

// readFile reads the file at path in the record, as readBelow does.
func (c *recordCopy) readFile(path string, limit int64) ([]byte, error) {
	return readBelow(c.runs, filepath.Join(c.id, path), limit)
}

// readBelow reads the file rel below root, following no link, refusing
// anything but a regular file and more than limit bytes.
func readBelow(root, rel string, limit int64) ([]byte, error) {
	f, err := files.OpenBelow(root, rel)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err == nil && !info.Mode().IsRegular() {
		err = &fs.PathError{Op: "open", Path: f.Name(), Err: files.ErrNotFile}
	}
	if err != nil {
		return nil, err
	}
	return files.ReadAll(f, f.Name(), limit)
}

// isRefused reports whether err is OpenBelow's refusal of a link or of
// what is not a file.
func isRefused(err error) bool {
	return errors.Is(err, files.ErrSymlink) || errors.Is(err, files.ErrNotFile)
}

// coarseClock is the coarsest time a file system keeps a directory's
// changes in.
const coarseClock = 2 * time.Second

// pieceName is the name of the piece at offset of the journal, as this
// worker's attempt writes it: two workers that both think they hold the
// run (one paused past its lease) never write under one name, so a late
// piece of the one that lost it cannot replace its taker's.
func (c *recordCopy) pieceName(offset int64) string {
	return fmt.Sprintf("%s/%s/%s%012d.%d", c.name, c.id, journalPiece, offset, c.attempt)
}

// storedRecord is what the store holds of one record: its files, and
// its journal's pieces: at each offset, the size and attempt of the
// piece of the highest attempt.
type storedRecord struct {
	files      []string
	pieces     map[int64]int64
	attempts   map[int64]int
	pieceNames []string // every piece's, all attempts'
}

// addPiece notes the piece named name, at off, of attempt's size bytes.
func (r *storedRecord) addPiece(name string, off int64, attempt int, size int64) {
	r.pieceNames = append(r.pieceNames, name)
	if _, seen := r.pieces[off]; !seen || attempt > r.attempts[off] {
		r.pieces[off], r.attempts[off] = size, attempt
	}
}

// pieceObject is the name of the piece of the journal at off that
// chain takes, its record's objects' names beginning with prefix.
func (r storedRecord) pieceObject(prefix string, off int64) string {
	name := fmt.Sprintf("%s%s%012d.%d", prefix, journalPiece, off, r.attempts[off])
	if r.attempts[off] == 0 && !slices.Contains(r.pieceNames, name) {
		name = fmt.Sprintf("%s%s%012d", prefix, journalPiece, off) // named as the first fleets did
	}
	return name
}

// chain is the offsets of the pieces that make the journal, in order:
// from its start, up to the first gap, the highest attempt's piece at
// each offset, and none of an attempt older than one before it (a
// worker that lost the run wrote it after its taker began).
func (r storedRecord) chain() []int64 {
	var offs []int64
	var at int64
	newest := -1
	for _, off := range r.offsets() {
		if off != at || r.attempts[off] < newest {
			break
		}
		offs = append(offs, off)
		at += r.pieces[off]
		newest = r.attempts[off]
	}
	return offs
}

// journalLength is how much of the journal the pieces hold from its
// start (chain).
func (r storedRecord) journalLength() int64 {
	var at int64
	for _, off := range r.chain() {
		at += r.pieces[off]
	}
	return at
}

// offsets are the pieces' offsets, in order.
func (r storedRecord) offsets() []int64 {
	var offs []int64
	for off := range r.pieces {
		offs = append(offs, off)
	}
	sort.Slice(offs, func(i, j int) bool { return offs[i] < offs[j] })
	return offs
}

// pieceAt parses the name of a piece, after its prefix: OFFSET.ATTEMPT,
// or OFFSET alone, as the first fleets named them (attempt 0).
func pieceAt(name string) (off int64, attempt int, ok bool) {
	o, a, hasAttempt := strings.Cut(name, ".")
	off, err := strconv.ParseInt(o, 10, 64)
	if err != nil || off < 0 {
		return 0, 0, false
	}
	if hasAttempt {
		if attempt, err = strconv.Atoi(a); err != nil || attempt < 0 {
			return 0, 0, false
		}
	}
	return off, attempt, true
}

// lastID is the id of the newest record: ids begin with the time their
// run started.
func lastID(records map[string]storedRecord) string {
	last := ""
	for id := range records {
		if id > last {
			last = id
		}
	}
	return last
}

// listObjects lists the store's objects; a test makes it fail.
var listObjects = func(ctx context.Context, obs jetstream.ObjectStore) ([]*jetstream.ObjectInfo, error) {
	return obs.List(ctx)
}

// storedRecords are the records the store holds of the run name, by id.
// The store is listed whole: a fleet's records are read only when a run
// is taken.
func storedRecords(ctx context.Context, obs jetstream.ObjectStore, name string) (map[string]storedRecord, error) {
	infos, err := listObjects(ctx, obs)
	if errors.Is(err, jetstream.ErrNoObjectsFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	records := map[string]storedRecord{}
	for _, info := range infos {
		rest, ok := strings.CutPrefix(info.Name, name+"/")
		if !ok {
			continue
		}
		id, path, ok := strings.Cut(rest, "/")
		if !ok || !runlog.IsID(id) || !isRecordPath(path) {
			continue // not a record's: a download would make it a path
		}
		r, seen := records[id]
		if !seen {
			r = storedRecord{pieces: map[int64]int64{}, attempts: map[int64]int{}}
		}
		if at, isPiece := strings.CutPrefix(path, journalPiece); isPiece {
			off, attempt, ok := pieceAt(at)
			if !ok {
				continue
			}
			r.addPiece(info.Name, off, attempt, int64(info.Size))
		} else {
			r.files = append(r.files, path)
		}
		records[id] = r
	}
	return records, nil
}

// downloadRecords writes the records the store holds of the run name
// into runs, the runs directory of a workspace made for it on this
// machine, and returns the id of the newest ("" if none): a worker
// that takes a run over where its workspace is not goes on from them.
// Each names workDir, where this worker runs rooda, as the directory
// its run ran in: rooda resumes a run only from there. runs lies below
// workDir (.rooda/runs); neither the store's names nor the clone are
// trusted: a name that is not a record's is passed over, and no link in
// the clone, from workDir down, is followed.
func (f *Fleet) downloadRecords(ctx context.Context, name, runs, workDir string) (string, error) {
	records, err := storedRecords(ctx, f.records, name)
	if err != nil || len(records) == 0 {
		return "", err
	}
	rel, err := filepath.Rel(workDir, runs)
	if err == nil {
		err = mkdirBelow(workDir, rel)
	}
	if err != nil {
		return "", fmt.Errorf("downloading the records of %s: %w", name, err)
	}
	for id, r := range records {
		err := f.downloadRecord(ctx, name+"/"+id+"/", runs, id, r)
		if err == nil {
			err = movedTo(filepath.Join(runs, id), workDir)
		}
		if err != nil {
			return "", fmt.Errorf("downloading the record %s of %s: %w", id, name, err)
		}
	}
	// As rooda keeps its records out of git (runlog's ignoreRecords).
	if _, err := os.Lstat(filepath.Join(runs, ".gitignore")); errors.Is(err, fs.ErrNotExist) {
		if err := files.WriteWhole(filepath.Join(runs, ".gitignore"), []byte("*\n")); err != nil {
			return "", err
		}
	}
	return lastID(records), nil
}

// downloadRecord writes record r, whose objects' names begin with
// prefix, as record id in runs: its files, and its journal's pieces
// joined up to the first gap.
func (f *Fleet) downloadRecord(ctx context.Context, prefix, runs, id string, r storedRecord) error {
	for _, path := range r.files {
		data, err := f.records.GetBytes(ctx, prefix+path)
		if err != nil {
			return err
		}
		if err := writeDownloaded(runs, filepath.Join(id, filepath.FromSlash(path)), data); err != nil {
			return err
		}
	}
	jnl, err := f.storedJournal(ctx, prefix, r)
	if err != nil {
		return err
	}
	return writeDownloaded(runs, filepath.Join(id, journal.Name), jnl)
}

// storedJournal is the journal of record r, whose objects' names begin
// with prefix, as the store holds it: its pieces joined (chain).
func (f *Fleet) storedJournal(ctx context.Context, prefix string, r storedRecord) ([]byte, error) {
	var jnl bytes.Buffer
	for _, off := range r.chain() {
		data, err := f.records.GetBytes(ctx, r.pieceObject(prefix, off))
		if err != nil {
			return nil, err
		}
		jnl.Write(data)
	}
	return jnl.Bytes(), nil
}

// isRecordPath reports whether path, a file's in a record as the store
// names it, stays in the record and is one the write-through sends: no
// part empty, "..", or beginning with a dot (rooda's own files).
func isRecordPath(path string) bool {
	if !fs.ValidPath(path) || path == "." {
		return false
	}
	for _, part := range strings.Split(path, "/") {
		if strings.HasPrefix(part, ".") {
			return false
		}
	}
	return true
}

// writeDownloaded writes data as the file rel of runs, whole (a
// rename, which replaces a link there, never follows it), its
// directories made where missing: the clone is the agent's, which may
// have committed a link among them, so none is followed.
func writeDownloaded(runs, rel string, data []byte) error {
	if err := mkdirBelow(runs, filepath.Dir(rel)); err != nil {
		return err
	}
	return files.WriteWhole(filepath.Join(runs, rel), data) // 0600, as rooda writes its records
}

// mkdirBelow makes the directory rel below root, each part that is
// missing, and refuses a part that is a link or not a directory.
func mkdirBelow(root, rel string) error {
	if rel != "." && rel != "" && !filepath.IsLocal(rel) {
		return fmt.Errorf("%s is not below %s", rel, root)
	}
	dir := root
	for _, part := range strings.Split(filepath.Clean(rel), string(filepath.Separator)) {
		if part == "." || part == "" {
			continue
		}
		dir = filepath.Join(dir, part)
		err := os.Mkdir(dir, 0o755)
		if err != nil && !errors.Is(err, fs.ErrExist) {
			return err
		}
		info, err := os.Lstat(dir)
		if err != nil {
			return err
		}
		if info.Mode()&fs.ModeSymlink != 0 {
			return &fs.PathError{Op: "mkdir", Path: dir, Err: files.ErrSymlink}
		}
		if !info.IsDir() {
			return &fs.PathError{Op: "mkdir", Path: dir, Err: syscall.ENOTDIR}
		}
	}
	return nil
}

// movedTo writes workDir into the run.json of the record at dir as the
// directory its run ran in (runlog.Run's dir, which a resume must be
// run from), every other field as it was.
func movedTo(dir, workDir string) error {
	path := filepath.Join(dir, "run.json")
	data, err := readBelow(dir, "run.json", files.RecordLimit)
	if errors.Is(err, fs.ErrNotExist) {
		return nil // a record whose run.json was not written through yet
	}
	if err != nil {
		return err
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if fields["dir"], err = json.Marshal(workDir); err != nil {
		return err
	}
	if data, err = json.MarshalIndent(fields, "", "  "); err != nil {
		return err
	}
	return files.WriteWhole(path, append(data, '\n'))
}
