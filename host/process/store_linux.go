package process

import (
	"errors"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// pipeStore keeps the most recent bytes of the agent's output pipe, at
// most its limit, in pipes of its own, without copying a flood: splice(2)
// moves the pages the agent wrote from its pipe into the store's, and out
// to /dev/null once newer bytes have replaced them. The kept bytes are
// read once, when the agent is done. A ring in rooda's memory copies
// every byte of a flood into 10 MiB that no cache holds: a gigabyte in
// 8 KiB pieces cost 1.13–1.36 times a pipe into cat in wall time that
// way, and costs 0.93–1.00 times spliced (README, Performance).
//
// A pipe holds a page to a slot, however little of it is filled: a
// little output (less than spliceFrom waiting) is read and written into
// the store instead, where it fills the last page. A store pipe thus
// holds close to its size, and 10 MiB take 11 pipes or so; pieces that
// each fill a little more than half a page, up to twice that. A store
// that storeBudget refuses a pipe hands over to the ring.
//
// A page spliced is the agent's, not a copy: where the agent wrote its
// output from a file with sendfile(2) or splice(2) and then changed that
// file in place (neither truncated nor replaced), the store keeps the
// changed bytes. rooda accepts that for the speed; no agent CLI writes
// its output so.
type pipeStore struct {
	limit int
	pipes []storePipe // oldest first; the last takes what comes
	spare []storePipe // emptied, for the next
	held  int         // bytes in pipes
	total int64       // bytes taken from the agent's pipe
	null  int         // /dev/null, where dropped bytes go
	// small is where a little output is read before it is written into
	// the store; unstored is what of it the store had no room for, when
	// it could have no more pipes (the ring takes it).
	small, unstored []byte
	made            int // pipes made, spares reused not counted
	// memory is where kept reads the store out, made ready (faulted in)
	// while the agent still prints, once the store holds its limit.
	memory chan []byte
}

// storePipe is one pipe of a store, non-blocking both ends, with how many
// bytes it holds.
type storePipe struct{ r, w, n int }

const (
	// storePipeSize is the size asked of each pipe of a store: 1 MiB is
	// pipe-max-size's default, the most an unprivileged user gets.
	storePipeSize = 1 << 20
	// storeFrom is the least limit a store serves: a smaller ring stays
	// in the caches, and a store keeps at least a pipe of pages.
	storeFrom = 1 << 20
	// spliceFrom is the least output waiting that is spliced; less is
	// read and written (see pipeStore).
	spliceFrom = 16 << 10
)

// storeBudget bounds the pipe memory the stores of all loops take
// together: a quarter of the user's pipe-user-pages-soft (64 MiB by
// default), which counts every pipe of that user's processes; beyond it
// each new pipe of theirs, the agents' too, gets a page or two. 10 MiB
// kept take about 11 MiB: one flood at a time is spliced, the others'
// output is read into rings.
var storeBudget = sync.OnceValue(func() int64 {
	budget := int64(16 << 20)
	data, err := os.ReadFile("/proc/sys/fs/pipe-user-pages-soft")
	if pages, perr := strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64); err == nil && perr == nil && pages > 0 {
		budget = pages * int64(os.Getpagesize()) / 4
	}
	return budget
})

// storeInUse is how much of storeBudget the stores hold.
var storeInUse atomic.Int64

// errStoreRefused says the store can take no more pipes: the budget is
// spent, or the kernel would not make a pipe of storePipeSize.
var errStoreRefused = errors.New("process: no pipe for the output store")

// newPipeStore returns a store keeping at most limit bytes, or nil where
// one cannot serve: a limit too small to need one, no pipe of
// storePipeSize to be had.
func newPipeStore(limit int) *pipeStore {
	if limit < storeFrom {
		return nil
	}
	null, err := unix.Open("/dev/null", unix.O_WRONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil
	}
	s := &pipeStore{limit: limit, null: null}
	if s.next() != nil {
		s.close()
		return nil
	}
	return s
}

// take moves what the agent's pipe src holds into the store. It returns
// how many bytes it took, unix.EAGAIN when src is empty, io.EOF at the
// end of the output, errStoreRefused when the store needed a pipe it could
// not have (what it took is kept all the same: into).
func (s *pipeStore) take(src int) (int, error) {
	if waiting, err := unix.IoctlGetInt(src, unix.TIOCINQ); err == nil && waiting > 0 && waiting < spliceFrom {
		return s.copyIn(src, waiting)
	}
	for {
		last := &s.pipes[len(s.pipes)-1]
		n, err := unix.Splice(src, nil, last.w, nil, storePipeSize, unix.SPLICE_F_NONBLOCK)
		switch {
		case n > 0:
			last.n += int(n)
			s.took(int(n))
			return int(n), nil
		case err == nil:
			return 0, io.EOF
		case err == unix.EINTR:
			continue
		case err != unix.EAGAIN:
			return 0, err
		case writable(last.w):
			return 0, unix.EAGAIN // src is empty
		}
		if err := s.next(); err != nil {
			return 0, err
		}
	}
}

// copyIn reads the bytes waiting in src, a little, and writes them into
// the store.
func (s *pipeStore) copyIn(src, waiting int) (int, error) {
	if s.small == nil {
		s.small = make([]byte, spliceFrom)
	}
	n, err := unix.Read(src, s.small[:waiting])
	for err == unix.EINTR {
		n, err = unix.Read(src, s.small[:waiting])
	}
	if n <= 0 || err != nil {
		return 0, err
	}
	stored := 0
	for stored < n {
		last := &s.pipes[len(s.pipes)-1]
		w, err := unix.Write(last.w, s.small[stored:n])
		if w > 0 {
			last.n += w
			stored += w
			continue
		}
		if err == unix.EINTR {
			continue
		}
		if err = s.next(); err != nil {
			s.held += stored
			s.total += int64(n)
			s.drop()
			s.unstored = s.small[stored:n]
			return n, err
		}
	}
	s.took(n)
	return n, nil
}

// took counts n bytes just taken into the last pipe.
func (s *pipeStore) took(n int) {
	s.held += n
	s.total += int64(n)
	s.drop()
	s.prepare()
}

// next adds an empty pipe to take what comes: a spare one, else a new one
// of storePipeSize, within storeBudget.
func (s *pipeStore) next() error {
	if k := len(s.spare); k > 0 {
		s.pipes = append(s.pipes, s.spare[k-1])
		s.spare = s.spare[:k-1]
		return nil
	}
	if storeInUse.Add(storePipeSize) > storeBudget() {
		storeInUse.Add(-storePipeSize)
		return errStoreRefused
	}
	var fds [2]int
	if err := unix.Pipe2(fds[:], unix.O_CLOEXEC|unix.O_NONBLOCK); err != nil {
		storeInUse.Add(-storePipeSize)
		return errors.Join(errStoreRefused, err)
	}
	p := storePipe{r: fds[0], w: fds[1]}
	if size, err := unix.FcntlInt(uintptr(p.r), unix.F_SETPIPE_SZ, storePipeSize); err != nil || size < storePipeSize {
		closePipe(p)
		return errors.Join(errStoreRefused, err)
	}
	s.made++
	s.pipes = append(s.pipes, p)
	return nil
}

// drop sends to /dev/null the oldest pipes' bytes that newer ones have
// replaced, whole pipes only: what is kept is trimmed to the limit at
// the end (kept).
func (s *pipeStore) drop() {
	for len(s.pipes) > 1 && s.held-s.pipes[0].n >= s.limit {
		oldest := s.pipes[0]
		s.pipes = s.pipes[1:]
		if s.discard(&oldest, oldest.n) {
			s.spare = append(s.spare, oldest)
		} else {
			s.held -= oldest.n // dropped all the same
			closePipe(oldest)
		}
	}
}

// discard sends the oldest n bytes of p to /dev/null, and reports
// whether it could.
func (s *pipeStore) discard(p *storePipe, n int) bool {
	for n > 0 {
		m, err := unix.Splice(p.r, nil, s.null, nil, n, unix.SPLICE_F_NONBLOCK)
		if err == unix.EINTR {
			continue
		}
		if err != nil || m <= 0 {
			return false // cannot be: the store is the pipe's only reader
		}
		n -= int(m)
		p.n -= int(m)
		s.held -= int(m)
	}
	return true
}

// prepare, once the store holds its limit, makes ready the memory kept
// will read it out into, while the agent still prints. Fresh memory
// costs a page fault a page (on the VM these figures come from, 20–50 µs
// each): reading 10 MiB out into it took 80 ms after a flood's agent had
// ended, where a ring had taken those faults as the flood went on.
func (s *pipeStore) prepare() {
	if s.memory != nil || s.held < s.limit {
		return
	}
	s.memory = make(chan []byte, 1)
	go func() {
		mem := make([]byte, s.limit)
		adviseHuge(mem)
		for i := 0; i < len(mem); i += 4096 {
			mem[i] = 0
		}
		s.memory <- mem[:0]
	}()
}

// kept reads out what the store keeps, the last limit bytes, oldest
// first, and closes the store.
func (s *pipeStore) kept() []byte {
	defer s.close()
	if over := s.held - s.limit; over > 0 {
		s.discard(&s.pipes[0], over) // drop left less than a pipe over
	}
	var out []byte
	if s.memory != nil {
		out = <-s.memory
	}
	if cap(out) < s.held {
		out = make([]byte, 0, s.held)
	}
	for _, p := range s.pipes {
		out = readN(p.r, out, p.n)
	}
	return out
}

// readN appends n bytes read from fd, which holds them, to out.
func readN(fd int, out []byte, n int) []byte {
	for end := len(out) + n; len(out) < end; {
		m, err := unix.Read(fd, out[len(out):end])
		if err == unix.EINTR {
			continue
		}
		if err != nil || m <= 0 {
			break // cannot be: the store is the pipe's only reader
		}
		out = out[:len(out)+m]
	}
	return out
}

// into writes what the store keeps, and what it took but had no room
// for, into ring, and closes the store: the capture reads on into the
// ring when the store can take no more.
func (s *pipeStore) into(ring *Ring) {
	kept := s.kept()
	ring.total = s.total - int64(len(kept)+len(s.unstored))
	ring.Write(kept)
	ring.Write(s.unstored)
}

// close closes the store's pipes.
func (s *pipeStore) close() {
	for _, p := range append(s.pipes, s.spare...) {
		closePipe(p)
	}
	s.pipes, s.spare = nil, nil
	unix.Close(s.null)
}

// closePipe closes a store pipe and gives its memory back to the budget.
func closePipe(p storePipe) {
	unix.Close(p.r)
	unix.Close(p.w)
	storeInUse.Add(-storePipeSize)
}

// writable reports whether a pipe's write end has a free slot.
func writable(fd int) bool {
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLOUT}}
	n, err := unix.Poll(fds, 0)
	return err == nil && n > 0 && fds[0].Revents&unix.POLLOUT != 0
}
