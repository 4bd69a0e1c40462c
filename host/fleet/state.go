package fleet

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// Phase is where a run is in the fleet.
type Phase string

const (
	Queued  Phase = "queued"  // waiting for a worker
	Running Phase = "running" // a worker holds its lease
	Ended   Phase = "ended"   // it ran to an end, which Status says
)

// State is a run's entry in the states bucket.
type State struct {
	Run   Run   `json:"run"`
	Phase Phase `json:"phase"`
	// Status is how it ended, in the words of `rooda runs list`
	// (success, max-iters, aborted…), once Phase is Ended.
	Status string `json:"status,omitempty"`
	// ExitCode is rooda's, once it ended.
	ExitCode int `json:"exit_code,omitempty"`
	// Worker is who holds it or last held it: host and pid.
	Worker string `json:"worker,omitempty"`
	// Workspace is where it runs on the worker's machine, and Record the
	// id of its record there.
	Workspace string `json:"workspace,omitempty"`
	Record    string `json:"record,omitempty"`
	// Attempt counts the workers that took it: more than one when a
	// lease lapsed.
	Attempt int `json:"attempt"`
	// Progress is how far it got, from its record, as its worker last
	// read it (at each renewal, and at its end).
	Progress
	Updated time.Time `json:"updated"`
	// Revision is the entry's revision in the bucket, which an update
	// must name (compare-and-set); not stored.
	Revision uint64 `json:"-"`
}

// Progress is how far a run got: its iterations that ended and what
// their agents spent, as its record counts them.
type Progress struct {
	Iterations int     `json:"iterations,omitempty"`
	Tokens     int64   `json:"tokens,omitempty"`
	CostUSD    float64 `json:"cost_usd,omitempty"`
}

// ErrNameTaken is a run name the fleet already has.
var ErrNameTaken = errors.New("a run of that name is already in the fleet")

// ErrRevisionMoved is an update of a state another wrote since it was
// read: a worker that gets it has lost the run.
var ErrRevisionMoved = errors.New("the run's state changed since it was read")

// createState writes the first state of a run, only if the name is new.
func (f *Fleet) createState(ctx context.Context, st State) (State, error) {
	data, err := encodeState(st)
	if err != nil {
		return st, err
	}
	rev, err := f.states.Create(ctx, st.Run.Name, data)
	if errors.Is(err, jetstream.ErrKeyExists) {
		return st, fmt.Errorf("%w: %s", ErrNameTaken, st.Run.Name)
	}
	st.Revision = rev
	return st, err
}

// updateState writes st over the revision it was read at, and returns it
// at its new revision; ErrRevisionMoved if another wrote in between.
func (f *Fleet) updateState(ctx context.Context, st State) (State, error) {
	data, err := encodeState(st)
	if err != nil {
		return st, err
	}
	rev, err := f.states.Update(ctx, st.Run.Name, data, st.Revision)
	if errors.Is(err, jetstream.ErrKeyRevisionMismatch) {
		return st, fmt.Errorf("%w: %s (revision %d)", ErrRevisionMoved, st.Run.Name, st.Revision)
	}
	if err != nil {
		return st, err
	}
	st.Revision = rev
	return st, nil
}

// State is the state of the run named name.
func (f *Fleet) State(ctx context.Context, name string) (State, error) {
	e, err := f.states.Get(ctx, name)
	if err != nil {
		return State{}, fmt.Errorf("run %s: %w", name, err)
	}
	return decodeState(e)
}

// States are the states of every run of the fleet, oldest queued first.
func (f *Fleet) States(ctx context.Context) ([]State, error) {
	keys, err := f.states.Keys(ctx)
	if errors.Is(err, jetstream.ErrNoKeysFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var states []State
	for _, k := range keys {
		st, err := f.State(ctx, k)
		if errors.Is(err, jetstream.ErrKeyNotFound) {
			continue // deleted since the listing
		}
		if err != nil {
			return nil, err
		}
		states = append(states, st)
	}
	sort.SliceStable(states, func(i, j int) bool { return states[i].Run.Queued.Before(states[j].Run.Queued) })
	return states, nil
}

func encodeState(st State) ([]byte, error) {
	st.Updated = time.Now().UTC()
	return json.Marshal(st)
}

func decodeState(e jetstream.KeyValueEntry) (State, error) {
	var st State
	if err := json.Unmarshal(e.Value(), &st); err != nil {
		return st, fmt.Errorf("run %s: its state is not readable: %w", e.Key(), err)
	}
	st.Revision = e.Revision()
	return st, nil
}
