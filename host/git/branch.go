package git

import (
	"context"
	"time"
)

// Branch is the branch checked out in the workspace dir now
// ("refs/heads/main", "" when HEAD is detached), asked of git each time
// rather than taken from Recorded, which keeps the first one seen in the
// process: a resume compares it with the branch its run's loop began on,
// and a script's run() may have switched branches since rooda first
// looked. false outside a work tree, or when git could not say.
func Branch(dir string) (string, bool) {
	r, ok := Recorded(dir)
	if !ok {
		return "", false
	}
	out, err := Run(context.Background(), Command{Args: []string{"rev-parse", "--symbolic-full-name", "HEAD"}, Dir: dir, Env: r.Env(), Timeout: 30 * time.Second})
	if err != nil {
		return "", false
	}
	if out == "HEAD" {
		return "", true
	}
	return out, true
}
