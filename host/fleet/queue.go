package fleet

import (
	"context"
	"encoding/json"
	"time"

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
