package fleet

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"time"

	"rooda/host/journal"
)

// branchPush pushes the branch of a run's clone, with what its agents
// committed, to the run's repository as the run goes: at each iteration's
// beginning and end, before the journal's entry that says so reaches the
// store (recordCopy's beforeJournal). With it go the refs rooda keeps of
// the record, refs/rooda/ID/… (docs/reliability.md, "Resuming a run"):
// the start of the iteration in flight, from which a resume elsewhere
// puts the workspace back as the iteration began, uncommitted files
// included. And the run's holder ref (holderRef), which says the run is
// this worker's: a worker that lost the run finds it moved, and its
// whole push refused, whoever pushed first.
type branchPush struct {
	dir string // the clone
	run Run
	// worker and attempt are who pushes, for the holder's commits.
	worker  string
	attempt int
	// expected is the branch's commit on the remote as this worker last
	// saw or left it ("" for none): a push forces the run's own branch
	// only from there (--force-with-lease), so a worker that lost the
	// run cannot push over its taker's commits.
	expected string
	// holder is the holder ref's commit on the remote as this worker
	// last saw or left it ("" for none): every push moves it, from
	// there only.
	holder string
	// pushes counts this worker's holder commits, each unlike the last.
	pushes int
	// unsettled are the holder commits of this worker's pushes (and
	// claim) that git reported failed, each with the branch's commit it
	// pushed ("" for a claim): a push stopped (the worker stopping its
	// looks, a timeout, a network cut before git's report) may have
	// landed all the same. Only this worker made them: the remote's
	// holder found at one of them is that push landed, adopted as
	// pushed (adopt).
	unsettled map[string]string
	// waiting is since when a piece ending with an iteration's beginning
	// has waited for its start's ref, which rooda writes just after it.
	waiting time.Time
}

// startRefWait bounds the wait for an iteration's start ref: rooda notes
// it at once, unless it cannot (outside git), and the journal must go on.
const startRefWait = 2 * time.Second

func newBranchPush(ctx context.Context, dir string, run Run, worker string, attempt int) *branchPush {
	return &branchPush{dir: dir, run: run, worker: worker, attempt: attempt,
		expected: remoteBranch(ctx, dir, run), holder: remoteHolder(ctx, dir, run)}
}

// beforeJournal pushes, before a piece of the journal of record id that
// begins or ends an iteration is uploaded: a piece whose last entry
// begins one waits (errNotYet) for that iteration's start ref, for a
// while.
func (p *branchPush) beforeJournal(ctx context.Context, id string, entries []journal.Entry) error {
	edge := false
	for _, e := range entries {
		edge = edge || e.Kind == journal.Began || e.Kind == journal.Ended
	}
	if !edge {
		// A call that moved the branch between iterations (git_merge())
		// is pushed before the journal says it was made.
		if p.moved(ctx) {
			return p.push(ctx, id)
		}
		return nil
	}
	last := entries[len(entries)-1]
	if last.Kind == journal.Began && !p.hasRef(ctx, startRef(id, last.Record)) {
		if p.waiting.IsZero() {
			p.waiting = time.Now()
		}
		if time.Since(p.waiting) < startRefWait {
			return errNotYet
		}
	}
	p.waiting = time.Time{}
	return p.push(ctx, id)
}

// moved reports whether the clone's branch is not where this worker
// last pushed it or saw it on the remote.
func (p *branchPush) moved(ctx context.Context) bool {
	head, err := gitOutput(ctx, p.dir, "rev-parse", "--verify", "refs/heads/"+Branch(p.run))
	return err == nil && head != p.expected
}

// startRef is the ref of record id's iteration n's start, as rooda's
// engine names it (host/engine/restore.go).
func startRef(id string, n int) string { return fmt.Sprintf("refs/rooda/%s/start/%d", id, n) }

func (p *branchPush) hasRef(ctx context.Context, ref string) bool {
	return git(ctx, p.dir, "rev-parse", "--verify", "--quiet", ref) == nil
}

// push pushes the run's branch, forced from the commit this worker
// expects there only, and record id's refs as they are here (those
// dropped here are deleted there), and a new holder commit, forced from
// the one this worker last pushed only. The push is atomic: a branch or
// holder update refused (another worker pushed since) refuses the
// refs' too, so that a worker that lost the run neither forces nor
// prunes its taker's, even when its taker has not pushed the branch
// yet: it claimed the holder when it took the run (claim).
func (p *branchPush) push(ctx context.Context, id string) error {
	if len(p.unsettled) > 0 {
		if err := p.settle(ctx); err != nil {
			return fmt.Errorf("pushing %s: %w", Branch(p.run), err)
		}
	}
	branch := "refs/heads/" + Branch(p.run)
	head, err := gitOutput(ctx, p.dir, "rev-parse", "--verify", branch)
	if err != nil {
		return err
	}
	holder, err := p.holding(ctx, head)
	if err != nil {
		return err
	}
	args := []string{"push", "--quiet", "--atomic", "--prune",
		"--force-with-lease=" + branch + ":" + p.expected,
		"--force-with-lease=" + holderRef(p.run) + ":" + p.holder,
		"origin", branch + ":" + branch, holder + ":" + holderRef(p.run)}
	if id != "" {
		args = append(args, "+refs/rooda/"+id+"/*:refs/rooda/"+id+"/*")
	}
	err = gitPush(ctx, p.dir, args...)
	if err == nil {
		p.landed(holder, head)
		return nil
	}
	switch p.fate(ctx, holder, head) {
	case pushLanded:
		return nil
	case runLost:
		err = fmt.Errorf("%w (%v)", errPushedOver, err)
	}
	return fmt.Errorf("pushing %s: %w", Branch(p.run), err)
}

// gitPush runs a push; a test's to make fail after the push landed.
var gitPush = git

// landed notes a push of holder, with the branch at head ("" for a
// claim, which leaves the branch alone), as where the remote is now.
// Pushes git reported failed before it can no longer land: each was
// leased on a holder the remote no longer has.
func (p *branchPush) landed(holder, head string) {
	p.holder = holder
	if head != "" {
		p.expected = head
	}
	p.unsettled = nil
}

// adopt takes the remote's holder, found at now, as pushed by this
// worker if it is one of its pushes git reported failed, and reports
// whether it is.
func (p *branchPush) adopt(now string) bool {
	head, ok := p.unsettled[now]
	if ok && now != "" {
		p.landed(now, head)
	}
	return ok && now != ""
}

// settle looks, before a push, whether one git reported failed landed
// all the same: the push goes on from there.
func (p *branchPush) settle(ctx context.Context) error {
	now, err := lsRemote(ctx, p.dir, holderRef(p.run))
	if err != nil {
		return err
	}
	p.adopt(now[holderRef(p.run)])
	return nil
}

// pushFate is what became of a push (or claim) git reported failed.
type pushFate int

const (
	pushFailed pushFate = iota // not landed, and the run still this worker's: tried again
	pushLanded                 // landed before git could say so
	runLost                    // another worker pushed the holder (or the branch) since this one last did
)

// fate judges a push of holder, with the branch at head ("" for a
// claim), that git reported failed, by the remote's refs as they are
// now rather than by git's words: a lease refused says "stale info",
// but a ref moved between git's look and its update "cannot lock ref",
// and a push stopped midway nothing. The remote's holder at holder is
// the push landed; at another of this worker's pushes git reported
// failed, that push landed (adopted, this one tried again); at the one
// this worker last pushed, with the branch where it left it, the push
// failed and is tried again; anywhere else the run was taken over.
func (p *branchPush) fate(ctx context.Context, holder, head string) pushFate {
	if p.unsettled == nil {
		p.unsettled = map[string]string{}
	}
	p.unsettled[holder] = head
	branch := "refs/heads/" + Branch(p.run)
	now, err := lsRemote(ctx, p.dir, branch, holderRef(p.run))
	switch {
	case err != nil:
		return pushFailed // not known: the next push looks again (settle)
	case p.adopt(now[holderRef(p.run)]):
		if p.holder == holder {
			return pushLanded
		}
		return pushFailed
	case now[holderRef(p.run)] != p.holder, head != "" && now[branch] != p.expected:
		return runLost
	}
	return pushFailed
}

// errPushedOver is a push refused because the remote's branch or holder
// ref is no longer where this worker last saw or left it: another
// worker pushed it since, which only a worker that took the run over
// does. The run is as good as lost: pushing on would fail at every
// look, and the run end with its commits here alone.
var errPushedOver = errors.New("another worker pushed the run's branch or holder since this one last did")

// holderRef is the ref of the run's repository that names the worker
// holding the run: a commit of its own, which each push of the holder
// replaces.
func holderRef(run Run) string { return "refs/rooda/fleet/" + run.Name + "/holder" }

// holding makes a new holder commit, for this worker's next push: the
// tree of the branch's commit tip, whose child it is (no new tree to
// send), with a message that names the run, the worker, its attempt,
// its push and the time to the nanosecond, so that no two are alike and
// no push of the holder is "up to date" without its lease checked.
func (p *branchPush) holding(ctx context.Context, tip string) (string, error) {
	p.pushes++
	msg := fmt.Sprintf("rooda fleet: %s held by %s attempt %d push %d at %d", p.run.Name, p.worker, p.attempt, p.pushes, time.Now().UnixNano())
	return gitOutput(ctx, p.dir, "-c", "user.name=rooda", "-c", "user.email=rooda@localhost",
		"commit-tree", "--no-gpg-sign", "-p", tip, "-m", msg, tip+"^{tree}")
}

// claim makes this worker the run's holder on its repository, as it
// takes the run: it pushes a new holder commit alone, forced from the
// holder the clone saw there when it was made (or last left it) only.
// A worker that lost the run and pushes later finds its holder gone,
// and its push refused (push). errClaimRefused if another worker pushed
// the holder since the clone saw it: this clone is not where the run
// is.
func (p *branchPush) claim(ctx context.Context) error {
	head, err := gitOutput(ctx, p.dir, "rev-parse", "--verify", "refs/heads/"+Branch(p.run))
	if err != nil {
		return err
	}
	holder, err := p.holding(ctx, head)
	if err != nil {
		return err
	}
	err = gitPush(ctx, p.dir, "push", "--quiet", "--atomic", "--force-with-lease="+holderRef(p.run)+":"+p.holder, "origin", holder+":"+holderRef(p.run))
	if err == nil {
		p.landed(holder, "")
		return nil
	}
	switch p.fate(ctx, holder, "") {
	case pushLanded:
		return nil
	case runLost:
		err = fmt.Errorf("%w (%v)", errClaimRefused, err)
	}
	return fmt.Errorf("claiming %s: %w", Branch(p.run), err)
}

// errClaimRefused is a claim refused because another worker pushed the
// run's holder ref since the clone saw it: a worker that lost the run
// and does not know it yet, or one that took it since. Not this
// worker's to go on from that clone.
var errClaimRefused = errors.New("another worker pushed the run's holder since this clone saw it")

// fetchRecordRefs fetches the refs rooda keeps of record id from the
// run's repository into the clone at dir: the start of the iteration in
// flight, for the resume to put the workspace back as it began.
func fetchRecordRefs(ctx context.Context, dir, id string) error {
	return git(ctx, dir, "fetch", "--quiet", "origin", "+refs/rooda/"+id+"/*:refs/rooda/"+id+"/*")
}

// rewindToJournal puts the branch of a clone just made back where the
// journal of the record at dir says its last iteration ended, when the
// branch went further: a worker pushes the branch before the journal's
// piece that names its commits, and one killed between the two leaves
// the remote ahead of the store, which the resume would refuse ("HEAD
// moved since iteration N ended"). Only a branch that holds that
// iteration's commit is put back, the commits past it kept under
// pastJournalRef; it returns the commit the branch was at, "" if it
// was left alone.
func rewindToJournal(ctx context.Context, ws, dir string, run Run) (string, error) {
	data, err := journal.ReadBytes(filepath.Join(dir, journal.Name))
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	entries, _ := journal.Parse(data)
	if len(entries) == 0 || entries[len(entries)-1].Kind != journal.Ended {
		return "", nil // an iteration in flight is put back by its start ref
	}
	var ended struct {
		Changes *struct {
			InRepo    bool
			HeadAfter string
		} `json:"changes"`
	}
	if json.Unmarshal(entries[len(entries)-1].Result, &ended) != nil || ended.Changes == nil || !ended.Changes.InRepo || ended.Changes.HeadAfter == "" {
		return "", nil
	}
	want := ended.Changes.HeadAfter
	head, err := gitOutput(ctx, ws, "rev-parse", "--verify", "HEAD")
	if err != nil || head == want || git(ctx, ws, "merge-base", "--is-ancestor", want, head) != nil {
		return "", err // as it should be, or not the journal's: the resume says so
	}
	if err := git(ctx, ws, "update-ref", pastJournalRef(run), head); err != nil {
		return "", err
	}
	return head, git(ctx, ws, "reset", "--quiet", "--hard", want)
}

// pastJournalRef keeps, in a clone, the commits its branch held past
// the store's journal.
func pastJournalRef(run Run) string { return "refs/rooda/fleet/" + run.Name + "/past-journal" }

// shortHash is a commit as git log shows it.
func shortHash(c string) string { return c[:min(len(c), 12)] }
