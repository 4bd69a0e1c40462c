package fleet

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
)

// embedded starts a real NATS server with JetStream in the test's
// process, on a store of its own, and stops it at the test's end.
func embedded(t *testing.T) *Server {
	t.Helper()
	s, err := StartServer(ServerConfig{Store: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Shutdown)
	return s
}

// client is one more connection to s, as another worker's.
func client(t *testing.T, s *Server) *Fleet {
	t.Helper()
	f, err := ConnectTo(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.Close)
	return f
}

func queue(t *testing.T, f *Fleet, lease time.Duration) *Queue {
	t.Helper()
	q, err := f.Queue(context.Background(), lease)
	if err != nil {
		t.Fatal(err)
	}
	return q
}

func testRun(name string) Run {
	return Run{Name: name, Argv: RoodaArgs("build", []string{"-n", "1"}), Dir: "/src", Ref: "0123abcd"}
}

// take takes a run within wait, or fails the test.
func take(t *testing.T, q *Queue, worker string, wait time.Duration) *Lease {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	l, err := q.Take(ctx, worker)
	if err != nil {
		t.Fatalf("%s took nothing within %s: %v", worker, wait, err)
	}
	return l
}

// takesNothing checks that q gives worker no run within wait.
func takesNothing(t *testing.T, q *Queue, worker string, wait time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	if l, err := q.Take(ctx, worker); err == nil {
		t.Fatalf("%s took %s (attempt %d), held by another", worker, l.State().Run.Name, l.State().Attempt)
	}
}

func TestQueuedRunsAreTakenOnceEach(t *testing.T) {
	s := embedded(t)
	ctx := context.Background()
	adder := client(t, s)
	for i := range 6 {
		if _, err := adder.Add(ctx, testRun(fmt.Sprintf("run-%d", i))); err != nil {
			t.Fatal(err)
		}
	}
	workers := []*Queue{queue(t, client(t, s), time.Minute), queue(t, client(t, s), time.Minute)}
	taken := map[string]string{}
	for i := range 6 {
		worker := fmt.Sprintf("w%d", i%2)
		l := take(t, workers[i%2], worker, 5*time.Second)
		name := l.State().Run.Name
		if by, ok := taken[name]; ok {
			t.Fatalf("%s took %s, which %s took already", worker, name, by)
		}
		taken[name] = worker
		if err := l.End(ctx, Ending{Status: "success"}); err != nil {
			t.Fatal(err)
		}
	}
	takesNothing(t, workers[0], "w0", 1500*time.Millisecond)
	states, err := adder.States(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(states) != 6 {
		t.Fatalf("%d states, want 6", len(states))
	}
	for _, st := range states {
		if st.Phase != Ended || st.Status != "success" || st.Attempt != 1 || st.Worker != taken[st.Run.Name] {
			t.Errorf("%s: %+v, taken by %s", st.Run.Name, st, taken[st.Run.Name])
		}
	}
}

func TestAddRefusesANameTheFleetHas(t *testing.T) {
	f := client(t, embedded(t))
	if _, err := f.Add(context.Background(), testRun("twice")); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Add(context.Background(), testRun("twice")); !errors.Is(err, ErrNameTaken) {
		t.Fatalf("second add of the name: %v, want ErrNameTaken", err)
	}
}

func TestARenewedLeaseKeepsTheRun(t *testing.T) {
	s := embedded(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	lease := 600 * time.Millisecond
	if _, err := client(t, s).Add(ctx, testRun("long")); err != nil {
		t.Fatal(err)
	}
	held := take(t, queue(t, client(t, s), lease), "a", 5*time.Second)
	lost := held.Hold(ctx, nil)
	takesNothing(t, queue(t, client(t, s), lease), "b", 5*lease)
	select {
	case err := <-lost:
		t.Fatalf("the lease was lost while renewed: %v", err)
	default:
	}
	if err := held.End(ctx, Ending{Status: "success"}); err != nil {
		t.Fatalf("the holder could not end its run: %v", err)
	}
}

func TestALapsedLeaseGivesTheRunToAnotherWorker(t *testing.T) {
	s := embedded(t)
	ctx := context.Background()
	lease := 500 * time.Millisecond
	if _, err := client(t, s).Add(ctx, testRun("orphan")); err != nil {
		t.Fatal(err)
	}
	// a takes the run and stops renewing, as a worker killed does.
	stale := take(t, queue(t, client(t, s), lease), "a", 5*time.Second)
	taken := take(t, queue(t, client(t, s), lease), "b", 10*lease)
	if st := taken.State(); st.Worker != "b" || st.Attempt != 2 || st.Phase != Running {
		t.Fatalf("after the lapse: %+v", st)
	}
	// a comes back: its renewal finds the run another's, and its end
	// is refused, so it writes nothing over b's.
	lostCtx, cancel := context.WithTimeout(ctx, 10*lease)
	defer cancel()
	if err := <-stale.Hold(lostCtx, nil); !errors.Is(err, ErrRevisionMoved) {
		t.Errorf("a's lease, lapsed: %v, want ErrRevisionMoved", err)
	}
	if err := stale.End(ctx, Ending{Status: "aborted", ExitCode: 1}); !errors.Is(err, ErrRevisionMoved) {
		t.Errorf("a's end of a run it lost: %v, want ErrRevisionMoved", err)
	}
	if err := taken.End(ctx, Ending{Status: "success"}); err != nil {
		t.Fatal(err)
	}
	st, err := client(t, s).State(ctx, "orphan")
	if err != nil {
		t.Fatal(err)
	}
	if st.Phase != Ended || st.Status != "success" || st.Worker != "b" {
		t.Errorf("the run's state at the end: %+v", st)
	}
}

func TestStatesAreWrittenByCompareAndSet(t *testing.T) {
	f := client(t, embedded(t))
	ctx := context.Background()
	first, err := f.Add(ctx, testRun("cas"))
	if err != nil {
		t.Fatal(err)
	}
	second := first // read at the same revision by another
	first.Worker = "a"
	if _, err := f.updateState(ctx, first); err != nil {
		t.Fatal(err)
	}
	second.Worker = "b"
	if _, err := f.updateState(ctx, second); !errors.Is(err, ErrRevisionMoved) {
		t.Fatalf("an update at a revision that moved: %v, want ErrRevisionMoved", err)
	}
	st, err := f.State(ctx, "cas")
	if err != nil {
		t.Fatal(err)
	}
	if st.Worker != "a" {
		t.Errorf("the state says worker %q, want a's write kept", st.Worker)
	}
}

func TestASecondServerCannotTakeAStoreInUse(t *testing.T) {
	store := t.TempDir()
	s, err := StartServer(ServerConfig{Store: store})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Shutdown()
	if _, err := StartServer(ServerConfig{Store: store}); !errors.Is(err, ErrStoreInUse) {
		t.Fatalf("a second server on the store: %v, want ErrStoreInUse", err)
	}
}

func TestAServerSaysWhyItCannotListen(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	done := make(chan error, 1)
	go func() {
		s, err := StartServer(ServerConfig{Store: t.TempDir(), Listen: taken.Addr().String()})
		if err == nil {
			s.Shutdown()
		}
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "address already in use") {
			t.Fatalf("a server on a port in use: %v, want the reason", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a server on a port in use was still starting after 10 s")
	}
}

// TestAListeningServerAsksForTheStoresToken: a run's command line is a
// program the workers run, so a server that listens takes only clients
// that give its store's token, which only the store's owner may read.
func TestAListeningServerAsksForTheStoresToken(t *testing.T) {
	store := t.TempDir()
	s, err := StartServer(ServerConfig{Store: store, Listen: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Shutdown()
	if nc, err := nats.Connect(s.URL(), nats.NoReconnect()); err == nil {
		nc.Close()
		t.Fatalf("a client with no token connected to %s", s.URL())
	}
	info, err := os.Stat(filepath.Join(store, tokenFile))
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("the token file: %v, mode %v, want 0600", err, info.Mode().Perm())
	}
	ctx := context.Background()
	for _, url := range []string{s.URL(), ""} { // given, and found in the store
		f, err := Connect(ctx, url, store)
		if err != nil {
			t.Fatalf("a client of the store's machine, server %q: %v", url, err)
		}
		f.Close()
	}
}

// TestALeaseThatCannotBeRenewedIsGivenUp: a holder cut off from the
// server (its connection gone) gives its run up once no renewal has
// reached the server for two thirds of the lease.
func TestALeaseThatCannotBeRenewedIsGivenUp(t *testing.T) {
	s := embedded(t)
	ctx := context.Background()
	lease := 900 * time.Millisecond
	if _, err := client(t, s).Add(ctx, testRun("cut-off")); err != nil {
		t.Fatal(err)
	}
	holder := client(t, s)
	held := take(t, queue(t, holder, lease), "a", 5*time.Second)
	lost := held.Hold(ctx, nil)
	holder.nc.Close()
	select {
	case err := <-lost:
		if !errors.Is(err, ErrLeaseExpired) {
			t.Fatalf("the lease of a holder cut off: %v, want ErrLeaseExpired", err)
		}
	case <-time.After(10 * lease):
		t.Fatal("a holder cut off from the server kept its lease")
	}
}
