package fleet

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// BenchmarkRunThroughTheQueue is what the fleet costs a run, on the
// embedded server through an in-process connection and over TCP: its
// state made and its message queued (add), taken by a worker (the state
// written running), ended (the state written, the message acknowledged).
// A run's iterations cost the fleet nothing more: a worker renews its
// lease every third of it, whatever the run does.
func BenchmarkRunThroughTheQueue(b *testing.B) {
	for _, listen := range []string{"", "127.0.0.1:0"} {
		name := "in-process"
		if listen != "" {
			name = "tcp"
		}
		b.Run(name, func(b *testing.B) {
			f := benchFleet(b, listen)
			ctx := context.Background()
			q, err := f.Queue(ctx, time.Minute)
			if err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for i := range b.N {
				if _, err := f.Add(ctx, testRun(fmt.Sprintf("run-%d", i))); err != nil {
					b.Fatal(err)
				}
				l, err := q.Take(ctx, "w")
				if err != nil {
					b.Fatal(err)
				}
				if err := l.End(ctx, Ending{Status: "success"}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkLeaseRenewal is one renewal: InProgress, and the read of the
// run's state that tells a worker whether it still holds the run.
func BenchmarkLeaseRenewal(b *testing.B) {
	f := benchFleet(b, "")
	ctx := context.Background()
	q, err := f.Queue(ctx, time.Minute)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := f.Add(ctx, testRun("held")); err != nil {
		b.Fatal(err)
	}
	l, err := q.Take(ctx, "w")
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		if err := l.renew(ctx, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// benchFleet is a client of an embedded server on a store of its own,
// connected in-process, or over TCP when listen is given.
func benchFleet(b *testing.B, listen string) *Fleet {
	store := b.TempDir()
	s, err := StartServer(ServerConfig{Store: store, Listen: listen})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(s.Shutdown)
	var f *Fleet
	if listen == "" {
		f, err = ConnectTo(context.Background(), s)
	} else {
		f, err = Connect(context.Background(), s.URL(), store)
	}
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(f.Close)
	return f
}
