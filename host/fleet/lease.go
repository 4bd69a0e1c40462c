package fleet

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// Lease is a worker's hold on a run: the run's message, unacknowledged,
// and its state at the revision the worker last wrote.
type Lease struct {
	q   *Queue
	msg jetstream.Msg
	mu  sync.Mutex
	st  State
	// taken is when the worker asked for the run: the lease runs from
	// no later than that.
	taken time.Time
	// tookOver is the worker whose lease on the run lapsed before this
	// one took it, "" if none did.
	tookOver string
}

// State is the run's state as the lease last wrote it.
func (l *Lease) State() State {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.st
}

// Update writes change of the run's state, over the revision the lease
// holds; ErrRevisionMoved if another worker wrote since: the lease is
// lost.
func (l *Lease) Update(ctx context.Context, change func(*State)) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	st := l.st
	change(&st)
	st, err := l.q.f.updateState(ctx, st)
	if err != nil {
		return err
	}
	l.st = st
	return nil
}

// Hold renews the lease every third of its time until ctx ends, and
// says on the channel it returns why the lease was lost, if it is:
// another worker has written the run's state since this one did (its
// lease lapsed and the run went on elsewhere), or the state is gone; or
// no renewal has reached the server for two thirds of the lease (a
// network cut): the worker gives the run up before the server can give
// it to another, rather than after. A renewal that fails otherwise is
// tried again at the next tick. At each renewal, progress (if not nil)
// says how far the run got; what changed is written to its state. The
// channel closes when Hold stops.
func (l *Lease) Hold(ctx context.Context, progress func() (Progress, bool)) <-chan error {
	lost := make(chan error, 1)
	go func() {
		defer close(lost)
		every := l.q.lease / 3
		tick := time.NewTicker(every)
		defer tick.Stop()
		renewed := l.taken
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			start := time.Now()
			renewCtx, cancel := context.WithTimeout(ctx, every)
			err := l.renew(renewCtx, progress)
			cancel()
			if ctx.Err() != nil {
				return
			}
			switch {
			case err == nil:
				renewed = start
			case errors.Is(err, ErrRevisionMoved) || errors.Is(err, jetstream.ErrKeyNotFound):
				lost <- err
				return
			case time.Since(renewed) >= 2*every:
				lost <- fmt.Errorf("%w: no renewal reached the server for %s (%v)", ErrLeaseExpired, time.Since(renewed).Round(time.Millisecond), err)
				return
			}
		}
	}()
	return lost
}

// ErrLeaseExpired is a lease its holder could not renew for most of its
// time: the holder gives the run up.
var ErrLeaseExpired = errors.New("the lease could not be renewed")

// renew tells the server the run goes on, then checks that the run's
// state is still at the revision this lease wrote: a worker that was
// paused past its lease learns here that the run is another's. Where
// the run got further, the check is the write of its progress, a
// compare-and-set like every write of the lease's.
func (l *Lease) renew(ctx context.Context, progress func() (Progress, bool)) error {
	if err := l.msg.InProgress(); err != nil {
		return fmt.Errorf("renewing the lease: %w", err)
	}
	if progress != nil {
		if p, ok := progress(); ok && p != l.State().Progress {
			return l.Update(ctx, func(st *State) { st.Progress = p })
		}
	}
	return l.stillHeld(ctx)
}

// stillHeld checks that the run's state is still at the revision this
// lease wrote last: ErrRevisionMoved if another worker wrote it since.
func (l *Lease) stillHeld(ctx context.Context) error {
	held := l.State()
	now, err := l.q.f.State(ctx, held.Run.Name)
	if err != nil {
		return err
	}
	if now.Revision != held.Revision && now.Revision != l.State().Revision {
		// Not even the revision the lease itself wrote meanwhile.
		return fmt.Errorf("%w: %s is held by %s (attempt %d)", ErrRevisionMoved, held.Run.Name, now.Worker, now.Attempt)
	}
	return nil
}

// Ending is how a run ended: its status, rooda's exit code, its record
// and how far it got.
type Ending struct {
	Status   string
	ExitCode int
	Record   string
	Progress Progress
}

// End writes how the run ended and acknowledges it, so that no worker
// takes it again. A lease lost meanwhile writes nothing.
func (l *Lease) End(ctx context.Context, e Ending) error {
	err := l.Update(ctx, func(st *State) {
		st.Phase, st.Status, st.ExitCode = Ended, e.Status, e.ExitCode
		if e.Record != "" {
			st.Record, st.Progress = e.Record, e.Progress
		}
	})
	if err != nil {
		return err
	}
	return l.msg.DoubleAck(ctx)
}

// Release gives the run back to the queue, queued again, for a worker
// to take up where it stopped after delay (0: at once): a worker that
// stops before its run ends, or finds it cannot work it yet.
func (l *Lease) Release(ctx context.Context, delay time.Duration) error {
	err := l.Update(ctx, func(st *State) { st.Phase = Queued })
	if err != nil {
		return err
	}
	if delay > 0 {
		return l.msg.NakWithDelay(delay)
	}
	return l.msg.Nak()
}
