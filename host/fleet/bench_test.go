package fleet

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"rooda/host/journal"
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

// BenchmarkRecordWriteThrough is what writing a run's record through to
// the store costs its worker: a look that finds nothing new (a stat of
// the journal, every writeThroughEvery while the run goes), and one
// after an iteration appended its two entries and wrote a file of its
// own (the record's files looked at, the new one uploaded, the journal's
// new bytes uploaded as a piece), on the embedded server in-process,
// the push of a clone's branch aside. The latter grows with the
// iterations the record holds (a stat of each one's directory): run it
// with -benchtime 100x and 1000x.
func BenchmarkRecordWriteThrough(b *testing.B) {
	f := benchFleet(b, "")
	ctx := context.Background()
	runs := b.TempDir()
	rec := startRecord(b, runs)
	jnl, err := journal.Open(filepath.Join(rec.Dir(), journal.Name))
	if err != nil {
		b.Fatal(err)
	}
	defer jnl.Close()
	c, err := f.newRecordCopy(ctx, "bench", runs, nil)
	if err != nil {
		b.Fatal(err)
	}
	key := journal.Key{Thread: "main", Seq: 1}
	b.Run("nothing-new", func(b *testing.B) {
		for range b.N {
			if err := c.sync(ctx, false); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("an-iteration", func(b *testing.B) {
		for i := range b.N {
			b.StopTimer()
			n := i + 1
			jnl.Append(journal.Entry{Kind: journal.Began, Key: key, N: n, Record: n}, false)
			dir := filepath.Join(rec.Dir(), "iterations", fmt.Sprintf("%04d", n))
			os.MkdirAll(dir, 0o755)
			os.WriteFile(filepath.Join(dir, "meta.json"), []byte(`{"n":1,"outcome":"success"}`), 0o600)
			// As an iteration of an agent, which takes a while, left
			// it: the iterations before were written long ago.
			ago := time.Now().Add(-time.Minute)
			os.Chtimes(filepath.Join(dir, "meta.json"), ago, ago)
			os.Chtimes(dir, ago, ago)
			jnl.Append(journal.Entry{Kind: journal.Ended, Key: key, N: n, Record: n, Result: []byte(`{"outcome":"success"}`)}, false)
			b.StartTimer()
			if err := c.sync(ctx, false); err != nil {
				b.Fatal(err)
			}
		}
	})
}
