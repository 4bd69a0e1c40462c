package runlog

// Place names the iteration going on: its run's id and its record's
// number, which name the git refs of its workspace's snapshots (one
// sequence for the whole run, so loops at once never share one).
func (l *LoopRecord) Place() (run string, record int) {
	l.r.mu.Lock()
	defer l.r.mu.Unlock()
	return l.r.run.ID, l.record
}

// KeptPartial names, for the iteration's meta.json, the ref that keeps
// what its killed try left in the workspace.
func (l *LoopRecord) KeptPartial(ref string) {
	l.r.mu.Lock()
	defer l.r.mu.Unlock()
	l.partial = ref
}
