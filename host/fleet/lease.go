package fleet

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Queue is the fleet's work queue as workers take from it: one durable
// consumer shared by every worker, whose ack wait is the lease.
type Queue struct {
	f     *Fleet
	cons  jetstream.Consumer
	lease time.Duration
}

// DefaultLease is how long a worker holds a run without renewing it
// before the run goes to another: about the longest a worker may stall
// (a paused VM, a lost network) without losing it.
const DefaultLease = 30 * time.Second

// Queue is the work queue for workers whose leases last lease: the ack
// wait of the consumer every worker shares, set by the last worker that
// came (one fleet, one lease).
func (f *Fleet) Queue(ctx context.Context, lease time.Duration) (*Queue, error) {
	cons, err := f.js.CreateOrUpdateConsumer(ctx, streamName, jetstream.ConsumerConfig{
		Durable:   consumer,
		AckPolicy: jetstream.AckExplicitPolicy,
		AckWait:   lease,
		// A run is given again for as long as workers take it and die:
		// what stops a run is its own budgets.
		MaxDeliver: -1,
	})
	if err != nil {
		return nil, err
	}
	return &Queue{f: f, cons: cons, lease: lease}, nil
}

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
}

// Take waits for a run no worker holds, as worker, and takes it: the
// state says running, by worker, at a revision the lease holds. A run
// that ended already (its acknowledgement lost) is acknowledged again
// and passed over.
func (q *Queue) Take(ctx context.Context, worker string) (*Lease, error) {
	for {
		asked := time.Now()
		msg, err := q.cons.Next(jetstream.FetchMaxWait(time.Second))
		if errors.Is(err, nats.ErrTimeout) || errors.Is(err, jetstream.ErrNoMessages) {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			continue
		}
		if err != nil {
			return nil, err
		}
		l, err := q.claim(ctx, msg, worker)
		if l != nil {
			l.taken = asked
		}
		if err != nil || l != nil {
			return l, err
		}
	}
}

// claim writes the run msg carries as running by worker; nil with no
// error for a run that needs no worker.
func (q *Queue) claim(ctx context.Context, msg jetstream.Msg, worker string) (*Lease, error) {
	var run Run
	if err := json.Unmarshal(msg.Data(), &run); err != nil {
		msg.Term() // never readable: giving it again would not help
		return nil, nil
	}
	st, err := q.f.State(ctx, run.Name)
	if err != nil {
		msg.Nak()
		return nil, err
	}
	if st.Phase == Ended {
		msg.Ack()
		return nil, nil
	}
	st.Phase, st.Worker, st.Status = Running, worker, ""
	st.Attempt++
	st, err = q.f.updateState(ctx, st)
	if errors.Is(err, ErrRevisionMoved) {
		// Written between the read and the update: read it again at
		// its next delivery.
		msg.Nak()
		return nil, nil
	}
	if err != nil {
		msg.Nak()
		return nil, err
	}
	return &Lease{q: q, msg: msg, st: st}, nil
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
// tried again at the next tick. The channel closes when Hold stops.
func (l *Lease) Hold(ctx context.Context) <-chan error {
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
			err := l.renew(renewCtx)
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
// paused past its lease learns here that the run is another's.
func (l *Lease) renew(ctx context.Context) error {
	if err := l.msg.InProgress(); err != nil {
		return fmt.Errorf("renewing the lease: %w", err)
	}
	held := l.State()
	now, err := l.q.f.State(ctx, held.Run.Name)
	if err != nil {
		return err
	}
	if now.Revision != held.Revision {
		return fmt.Errorf("%w: %s is held by %s (attempt %d)", ErrRevisionMoved, held.Run.Name, now.Worker, now.Attempt)
	}
	return nil
}

// Ending is how a run ended: its status, rooda's exit code, its record.
type Ending struct {
	Status   string
	ExitCode int
	Record   string
}

// End writes how the run ended and acknowledges it, so that no worker
// takes it again. A lease lost meanwhile writes nothing.
func (l *Lease) End(ctx context.Context, e Ending) error {
	err := l.Update(ctx, func(st *State) {
		st.Phase, st.Status, st.ExitCode = Ended, e.Status, e.ExitCode
		if e.Record != "" {
			st.Record = e.Record
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
