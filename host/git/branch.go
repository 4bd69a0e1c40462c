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
	out, ok := revParse(dir, "--symbolic-full-name", "HEAD")
	if out == "HEAD" {
		return "", ok
	}
	return out, ok
}

// Head is HEAD's commit in the workspace dir now, asked of git as Branch
// is; "" before the first commit. false outside a work tree, or when git
// could not say.
func Head(dir string) (string, bool) {
	if _, ok := Recorded(dir); !ok {
		return "", false
	}
	out, _ := revParse(dir, "--verify", "--quiet", "HEAD")
	return out, true
}

// revParse asks git rev-parse of the repository recorded for dir.
func revParse(dir string, args ...string) (string, bool) {
	r, ok := Recorded(dir)
	if !ok {
		return "", false
	}
	out, err := Run(context.Background(), Command{Args: append([]string{"rev-parse"}, args...), Dir: dir, Env: r.Env(), Timeout: 30 * time.Second})
	return out, err == nil
}
