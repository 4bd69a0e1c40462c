package later

import "sync"

// Queue does pieces of work in a goroutine of its own, one at a time, in
// the order they were added: the files of an iteration's record, then
// the journal's entry that names them.
type Queue struct {
	mu      sync.Mutex
	done    *sync.Cond
	work    []func() error
	running bool
	// added and finished count the pieces added and done: Wait waits for
	// those added before it, not for the queue to empty, which other
	// loops adding to it might put off for ever.
	added, finished uint64
	err             error
}

// NewQueue is an empty queue.
func NewQueue() *Queue {
	q := &Queue{}
	q.done = sync.NewCond(&q.mu)
	return q
}

// Add has work done after what was added before it.
func (q *Queue) Add(work func() error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.work = append(q.work, work)
	q.added++
	if !q.running {
		q.running = true
		go q.run()
	}
}

// run does the work added until none is left.
func (q *Queue) run() {
	q.mu.Lock()
	defer q.mu.Unlock()
	for len(q.work) > 0 {
		work := q.work[0]
		q.work = q.work[1:]
		q.mu.Unlock()
		err := work()
		q.mu.Lock()
		if err != nil && q.err == nil {
			q.err = err
		}
		q.finished++
		q.done.Broadcast()
	}
	q.running = false
}

// Wait returns once the work added before it is done, with the first
// failure of the queue's work since a Wait last said one.
func (q *Queue) Wait() error {
	q.mu.Lock()
	defer q.mu.Unlock()
	for added := q.added; q.finished < added; {
		q.done.Wait()
	}
	err := q.err
	q.err = nil
	return err
}
