package process

import (
	"errors"
	"io"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// pipeStore keeps the most recent bytes of the agent's output pipe, at
// most its limit, in pipes of its own, without copying them: splice(2)
// moves the pages the agent wrote from its pipe into the store's, and
// out to /dev/null once newer bytes have replaced them. Only the kept
// bytes are read, once, when the agent is done. A ring in rooda's memory
// copies every byte of a flood into 10 MiB that no cache holds; a
// gigabyte written in 8 KiB pieces cost 1.13–1.2 times a pipe into cat
// in wall time that way, where the store costs no more than cat.
//
// A pipe holds its pages one to a slot, however little of a page an
// agent printing slowly filled: a store pipe whose slots are all taken
// before it holds half its size is compacted (its bytes read and written
// again, into whole pages), so that no more than 2*limit/storePipeSize+2
// pipes keep the limit.
type pipeStore struct {
	limit int
	pipes []storePipe // oldest first; the last takes what comes
	spare []storePipe // emptied, for the next
	held  int         // bytes in pipes
	total int64
	null  int // /dev/null, where dropped bytes go
	// memory is where kept reads the store out, made ready (faulted in)
	// while the agent still prints, once the store holds its limit.
	memory chan []byte
}

// storePipe is one pipe of a store, with how many bytes it holds.
type storePipe struct{ r, w, n int }

const (
	// storePipeSize is the size asked of each pipe of a store: 1 MiB is
	// pipe-max-size's default, the most an unprivileged user gets.
	storePipeSize = 1 << 20
	// storeFrom is the least limit a store serves: a smaller ring stays
	// in the caches, and a store keeps at least a pipe of pages.
	storeFrom = 1 << 20
	// storeBudget bounds the pipe memory the stores of every loop take
	// together: pipe memory counts against the user's
	// pipe-user-pages-soft (64 MiB by default), and beyond it every new
	// pipe of that user's processes, the agents' too, gets a page or two.
	storeBudget = 32 << 20
)

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
// how many bytes it moved, unix.EAGAIN when src is empty, io.EOF at the
// end of the output, errStoreRefused when the store needed a pipe it could
// not have.
func (s *pipeStore) take(src int) (int, error) {
	for {
		last := &s.pipes[len(s.pipes)-1]
		n, err := unix.Splice(src, nil, last.w, nil, storePipeSize, unix.SPLICE_F_MOVE|unix.SPLICE_F_NONBLOCK)
		switch {
		case n > 0:
			last.n += int(n)
			s.held += int(n)
			s.total += n
			s.drop()
			s.prepare()
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
		if err := s.makeRoom(); err != nil {
			return 0, err
		}
	}
}

// makeRoom makes room for more once the last pipe's slots are all taken:
// a next pipe, or, when the last holds less than half its size (pages
// partly filled), the same bytes in whole pages.
func (s *pipeStore) makeRoom() error {
	last := s.pipes[len(s.pipes)-1]
	if last.n >= storePipeSize/2 {
		return s.next()
	}
	s.pipes = s.pipes[:len(s.pipes)-1]
	if err := s.next(); err != nil {
		s.pipes = append(s.pipes, last)
		return err
	}
	into := &s.pipes[len(s.pipes)-1]
	bytes := readN(last.r, make([]byte, 0, last.n), last.n)
	if err := writeAll(into.w, bytes); err != nil {
		return errors.Join(errStoreRefused, err)
	}
	into.n, last.n = len(bytes), 0
	s.spare = append(s.spare, last)
	return nil
}

// next adds an empty pipe to take what comes: a spare one, else a new one
// of storePipeSize, within storeBudget.
func (s *pipeStore) next() error {
	if k := len(s.spare); k > 0 {
		s.pipes = append(s.pipes, s.spare[k-1])
		s.spare = s.spare[:k-1]
		return nil
	}
	if storeInUse.Add(storePipeSize) > storeBudget {
		storeInUse.Add(-storePipeSize)
		return errStoreRefused
	}
	var fds [2]int
	if err := unix.Pipe2(fds[:], unix.O_CLOEXEC); err != nil {
		storeInUse.Add(-storePipeSize)
		return errors.Join(errStoreRefused, err)
	}
	if size, err := unix.FcntlInt(uintptr(fds[0]), unix.F_SETPIPE_SZ, storePipeSize); err != nil || size < storePipeSize {
		unix.Close(fds[0])
		unix.Close(fds[1])
		storeInUse.Add(-storePipeSize)
		return errors.Join(errStoreRefused, err)
	}
	s.pipes = append(s.pipes, storePipe{r: fds[0], w: fds[1]})
	return nil
}

// drop sends to /dev/null the oldest pipes' bytes that newer ones have
// replaced, whole pipes only: what is kept is trimmed to the limit at
// the end (kept).
func (s *pipeStore) drop() {
	for len(s.pipes) > 1 && s.held-s.pipes[0].n >= s.limit {
		oldest := s.pipes[0]
		s.discard(&oldest, oldest.n)
		s.pipes = s.pipes[1:]
		s.spare = append(s.spare, oldest)
	}
}

// discard sends the oldest n bytes of p to /dev/null.
func (s *pipeStore) discard(p *storePipe, n int) {
	for n > 0 {
		m, err := unix.Splice(p.r, nil, s.null, nil, n, unix.SPLICE_F_MOVE|unix.SPLICE_F_NONBLOCK)
		if err == unix.EINTR {
			continue
		}
		if err != nil || m <= 0 {
			return // cannot be: the store is the pipe's only reader
		}
		n -= int(m)
		p.n -= int(m)
		s.held -= int(m)
	}
}

// kept reads out what the store keeps, the last limit bytes, oldest
// first, and closes the store.
func (s *pipeStore) kept() []byte {
	defer s.close()
	if over := s.held - s.limit; over > 0 {
		s.discard(&s.pipes[0], over)
	}
	out := make([]byte, 0, s.held)
	if s.memory != nil {
		out = <-s.memory
	}
	for _, p := range s.pipes {
		out = readN(p.r, out, p.n)
	}
	return out
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

// into writes what the store keeps into ring, and closes the store: the
// capture goes on reading when the store can take no more.
func (s *pipeStore) into(ring *Ring) {
	kept := s.kept()
	ring.total = s.total - int64(len(kept))
	ring.Write(kept)
}

// close closes the store's pipes and gives their memory back to the
// budget.
func (s *pipeStore) close() {
	for _, p := range append(s.pipes, s.spare...) {
		unix.Close(p.r)
		unix.Close(p.w)
		storeInUse.Add(-storePipeSize)
	}
	s.pipes, s.spare = nil, nil
	unix.Close(s.null)
}

// writable reports whether a pipe's write end has a free slot.
func writable(fd int) bool {
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLOUT}}
	n, err := unix.Poll(fds, 0)
	return err == nil && n > 0 && fds[0].Revents&unix.POLLOUT != 0
}

// writeAll writes all of b to fd, a pipe with room for it.
func writeAll(fd int, b []byte) error {
	for len(b) > 0 {
		n, err := unix.Write(fd, b)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return err
		}
		b = b[n:]
	}
	return nil
}
