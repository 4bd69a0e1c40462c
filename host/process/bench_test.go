package process

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// The benchmarks compare rooda's way of running an agent with the plainest
// way a shell would, in the same run (bench/run.sh does the same with the
// real binary; docs/performance.md has the figures):
//
//	go test ./host/process -run '^$' -bench . -benchtime 5x
//
// BenchmarkFlood: an agent prints ROODA_BENCH_BYTES (default 1 GiB) and a
// signal, in 64 KiB writes and in 8 KiB pieces; rooda keeps the last
// 10 MiB, the baseline pipes it to /dev/null. Compare each rooda with the
// pipe of the same writer, in the same run.
// BenchmarkIteration: an agent that only reads its prompt; rooda's Run
// against exec.Command with the prompt on stdin.

var (
	fakeOnce sync.Once
	fakeDir  string
	fakeErr  error
)

// fakeAgent builds the project's fake agent and writes a script for it.
func fakeAgent(b *testing.B, script string) []string {
	b.Helper()
	fakeOnce.Do(func() {
		fakeDir, fakeErr = os.MkdirTemp("", "rooda-bench")
		if fakeErr == nil {
			var out []byte
			out, fakeErr = exec.Command("go", "build", "-o", filepath.Join(fakeDir, "fakeagent"), "rooda/internal/fakeagent").CombinedOutput()
			if fakeErr != nil {
				fakeErr = &buildError{out}
			}
		}
	})
	if fakeErr != nil {
		b.Fatal(fakeErr)
	}
	path := filepath.Join(b.TempDir(), "script.json")
	if err := os.WriteFile(path, []byte(script), 0o644); err != nil {
		b.Fatal(err)
	}
	return []string{filepath.Join(fakeDir, "fakeagent"), path}
}

type buildError struct{ out []byte }

func (e *buildError) Error() string { return string(e.out) }

func floodBytes() int64 {
	if n, err := strconv.ParseInt(os.Getenv("ROODA_BENCH_BYTES"), 10, 64); err == nil && n > 0 {
		return n
	}
	return 1 << 30
}

func benchBuffer() int {
	if n, err := strconv.Atoi(os.Getenv("ROODA_BENCH_BUFFER")); err == nil && n > 0 {
		return n
	}
	return 10 << 20
}

func BenchmarkFlood(b *testing.B) {
	// The fast writer, in 64 KiB writes, and one in 8 KiB pieces, as an
	// agent that prints as it goes does: each against its own pipe.
	for _, chunk := range []int{64 << 10, 8 << 10} {
		b.Run(strconv.Itoa(chunk>>10)+"KiB", func(b *testing.B) { benchFlood(b, chunk) })
	}
}

// benchFlood runs the flood in writes of chunk bytes through Run, with
// the idle timeout rooda sets by default, and through a pipe to cat;
// "streamed" also writes each read on, as rooda shows an agent's output
// live.
func benchFlood(b *testing.B, chunk int) {
	n := floodBytes()
	argv := fakeAgent(b, fmt.Sprintf(`{"steps": [{"bytes": %d, "chunk": %d, "after": "<promise>SUCCESS</promise>"}]}`, n, chunk))
	for _, stream := range []io.Writer{nil, io.Discard} {
		name := "rooda"
		if stream != nil {
			name = "rooda-streamed"
		}
		b.Run(name, func(b *testing.B) {
			b.SetBytes(n)
			defer reportCPU(b)()
			for i := 0; i < b.N; i++ {
				res, err := Run(context.Background(), Command{Argv: argv, MaxOutput: benchBuffer(), IdleTimeout: 15 * time.Minute, Stream: stream})
				if err != nil || !strings.HasSuffix(string(res.Output), "<promise>SUCCESS</promise>") || res.Total != n+26 {
					b.Fatalf("%v: total %d", err, res.Total)
				}
			}
		})
	}
	b.Run("pipe", func(b *testing.B) {
		b.SetBytes(n)
		line := strings.Join(argv, " ") + " </dev/null | cat >/dev/null"
		defer reportCPU(b)()
		for i := 0; i < b.N; i++ {
			if out, err := exec.Command("sh", "-c", line).CombinedOutput(); err != nil {
				b.Fatalf("%v: %s", err, out)
			}
		}
	})
}

// reportCPU starts counting the CPU time of the benchmark's process and of
// the children it waited for; the function it returns reports it per
// operation as cpu-ms/op, next to the wall time: a capture that keeps up
// by burning a second core is no cheaper.
func reportCPU(b *testing.B) func() {
	start := cpuTime()
	return func() {
		b.ReportMetric(float64((cpuTime()-start).Microseconds())/1000/float64(b.N), "cpu-ms/op")
	}
}

// cpuTime is the user and system time of this process and of its children
// waited for.
func cpuTime() time.Duration {
	var total time.Duration
	for _, who := range []int{syscall.RUSAGE_SELF, syscall.RUSAGE_CHILDREN} {
		var u syscall.Rusage
		syscall.Getrusage(who, &u)
		total += time.Duration(u.Utime.Nano() + u.Stime.Nano())
	}
	return total
}

func BenchmarkIteration(b *testing.B) {
	argv := fakeAgent(b, `{"steps": [{}]}`)
	prompt := strings.Repeat("a line of the prompt, as long as most are\n", 100)
	b.Run("rooda", func(b *testing.B) {
		defer reportCPU(b)()
		for i := 0; i < b.N; i++ {
			res, err := Run(context.Background(), Command{Argv: argv, Prompt: prompt, MaxOutput: 10 << 20})
			if err != nil || res.ExitCode != 0 {
				b.Fatalf("%v: exit %d %s", err, res.ExitCode, res.Output)
			}
		}
	})
	b.Run("exec", func(b *testing.B) {
		defer reportCPU(b)()
		for i := 0; i < b.N; i++ {
			cmd := exec.Command(argv[0], argv[1:]...)
			cmd.Stdin = strings.NewReader(prompt)
			if out, err := cmd.CombinedOutput(); err != nil {
				b.Fatalf("%v: %s", err, out)
			}
		}
	})
}
