package fleet

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	hostgit "rooda/host/git"
)

// A run queued with a repository (Run.Repo) works in a clone of it: any
// worker on any machine makes one, and the workspace's branch is pushed
// back to it as the run goes, so that a worker elsewhere goes on from
// where the last one stopped.

// clone makes the run's workspace at path a clone of its repository, on
// its branch: the branch as the remote has it if a worker pushed it
// (the run went on elsewhere), else made at the run's commit. The clone
// fetches the run's holder ref (holderRef) with its branches, in the
// same look at the remote, into holderCopy: what its claim expects
// there. The clone is
// made beside path and renamed into place, so that a worker killed
// while cloning leaves no workspace that looks whole.
func clone(ctx context.Context, path string, run Run) error {
	tmp := path + ".cloning"
	if err := os.RemoveAll(tmp); err != nil {
		return err
	}
	// A pattern, which matches nothing in a repository without the
	// ref, where the ref's own name would fail the clone. Kept in the
	// clone's config, so that a push of the holder updates the clone's
	// copy too. The copy is kept under a namespace of its own
	// (holderCopy): a fetch that prunes (an agent's git pull, with the
	// user's fetch.prune) deletes what it fetches into that the remote
	// does not have, and the clone keeps refs of its own under
	// refs/rooda/fleet/NAME/ (pastJournalRef).
	fleetRefs := "+refs/rooda/fleet/" + run.Name + "/*:" + originFleetRefs + run.Name + "/*"
	if err := git(ctx, filepath.Dir(path), "clone", "--quiet", "--no-checkout", "--config", "remote.origin.fetch="+fleetRefs, "--", run.Repo, tmp); err != nil {
		return err
	}
	start := run.Ref
	if remoteBranch(ctx, tmp, run) != "" {
		start = "refs/remotes/origin/" + Branch(run)
	}
	if err := git(ctx, tmp, "checkout", "--quiet", "-b", Branch(run), start); err != nil {
		os.RemoveAll(tmp)
		return err
	}
	return os.Rename(tmp, path)
}

// remoteBranch is the commit of the run's branch on the remote as the
// clone at dir last saw it (fetched, or pushed by this worker), "" if
// it has none: what a push expects to find there.
func remoteBranch(ctx context.Context, dir string, run Run) string {
	out, err := gitOutput(ctx, dir, "rev-parse", "--verify", "--quiet", "refs/remotes/origin/"+Branch(run))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(out)
}

// remoteHolder is the commit of the run's holder ref on the remote as
// the clone at dir last saw it (cloned, or pushed by this worker), ""
// if it has none: what a claim expects there.
func remoteHolder(ctx context.Context, dir string, run Run) string {
	out, err := gitOutput(ctx, dir, "rev-parse", "--verify", "--quiet", holderCopy(run))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(out)
}

// originFleetRefs is where a clone keeps its copies of the remote's
// refs/rooda/fleet/: as refs/remotes/origin/ to refs/heads/.
const originFleetRefs = "refs/rooda-origin/fleet/"

// holderCopy is the clone's copy of the remote's holder ref.
func holderCopy(run Run) string { return originFleetRefs + run.Name + "/holder" }

// remoteMoved reports whether the run's branch or holder ref on the
// remote is no longer where the clone at dir last saw or left it:
// another worker pushed or claimed it since, and this clone's pushes
// would be refused.
func remoteMoved(ctx context.Context, dir string, run Run) (bool, error) {
	branch := "refs/heads/" + Branch(run)
	now, err := lsRemote(ctx, dir, branch, holderRef(run))
	if err != nil {
		return false, err
	}
	return now[branch] != remoteBranch(ctx, dir, run) || now[holderRef(run)] != remoteHolder(ctx, dir, run), nil
}

// lsRemote is where the clone at dir's remote has refs now, by ref
// ("" for one it has not).
func lsRemote(ctx context.Context, dir string, refs ...string) (map[string]string, error) {
	out, err := gitOutput(ctx, dir, append([]string{"ls-remote", "--", "origin"}, refs...)...)
	if err != nil {
		return nil, err
	}
	now := map[string]string{}
	for _, line := range strings.Split(out, "\n") {
		if commit, ref, ok := strings.Cut(line, "\t"); ok {
			now[ref] = commit
		}
	}
	return now, nil
}

// ResolveRemoteRef is the commit ref names in the repository repo (a
// URL or a path), as `git ls-remote` finds it: HEAD, a branch or a tag
// of that exact name (refs/heads/main, not refs/heads/team/main, for
// main); a name the repository does not have that looks like a commit's
// hash is taken as it is, for the clone to find (a branch named cafe123
// is the branch).
func ResolveRemoteRef(ctx context.Context, repo, ref string) (string, error) {
	out, err := gitOutput(ctx, ".", "ls-remote", "--", repo, ref)
	if err != nil {
		return "", fmt.Errorf("%s: not a repository git can read (%w)", repo, err)
	}
	found := map[string]string{}
	for _, line := range strings.Split(out, "\n") {
		if fields := strings.Fields(line); len(fields) == 2 {
			found[fields[1]] = fields[0]
		}
	}
	for _, name := range []string{ref, "refs/heads/" + ref, "refs/tags/" + ref + "^{}", "refs/tags/" + ref} {
		if commit, ok := found[name]; ok {
			return commit, nil
		}
	}
	if hostgit.IsHashPrefix(ref) {
		return ref, nil
	}
	return "", fmt.Errorf("%s has no ref %s", repo, ref)
}

// RepoOf is how a run names the repository given to add: a local path
// made absolute (the worker runs elsewhere), a URL as it is.
func RepoOf(repo string) (string, error) {
	if strings.Contains(repo, "://") || isSCPLike(repo) {
		return repo, nil
	}
	return filepath.Abs(repo)
}

// isSCPLike is git's user@host:path form of an ssh URL: a colon before
// any slash.
func isSCPLike(repo string) bool {
	colon := strings.IndexByte(repo, ':')
	slash := strings.IndexByte(repo, '/')
	return colon > 0 && (slash < 0 || colon < slash)
}
