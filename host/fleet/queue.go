package fleet

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Add queues run: its state first, which claims its name (a second run of
// the same name is refused), then its message on the work queue.
func (f *Fleet) Add(ctx context.Context, run Run) (State, error) {
	if run.Queued.IsZero() {
		run.Queued = time.Now().UTC()
	}
	if err := run.check(); err != nil {
		return State{}, err
	}
	st, err := f.createState(ctx, State{Run: run, Phase: Queued})
	if err != nil {
		return st, err
	}
	data, err := json.Marshal(run)
	if err == nil {
		// The name as the message's id: a publish retried after a lost
		// answer is queued once.
		_, err = f.js.Publish(ctx, queuedSubj, data, jetstream.WithMsgID(run.Name))
	}
	if err != nil {
		// A state with no message would say queued for ever.
		f.states.Delete(context.WithoutCancel(ctx), run.Name)
		return st, err
	}
	return st, nil
}

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
	// A run still running by another is one whose lease lapsed: taken
	// over, not given back.
	lapsed := ""
	if st.Phase == Running {
		lapsed = st.Worker
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
	return &Lease{q: q, msg: msg, st: st, tookOver: lapsed}, nil
}
