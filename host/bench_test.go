package host_test

import (
	"testing"

	"rooda/internal/hosttest"
)

// BenchmarkSteps measures what the memory budget costs a script's own
// computation (a checkpoint every 8 steps, the collector paced by them),
// against the same script without a budget, in the same run:
//
//	go test ./host -run '^$' -bench Steps -benchmem
func BenchmarkSteps(b *testing.B) {
	script := "x = 0\nfor i in range(300000):\n    x += i\ns = []\nfor i in range(30000):\n    s.append(str(i) * 10)\n"
	for _, bc := range []struct {
		name   string
		budget int64
	}{{"no_budget", 0}, {"budget_1GiB", 1 << 30}} {
		b.Run(bc.name, func(b *testing.B) {
			f := hosttest.New(b, map[string]string{"main.star": script})
			f.Opts.MaxMemory = bc.budget
			for b.Loop() {
				if err := f.Run("main.star"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
