package journal

import (
	"strconv"
	"strings"
	"sync"
)

// Book is a journal read back for a resumed run: the answer of each call
// by its key, and of each iteration by its loop's key and its number.
// Entries a Void took back are not in it.
type Book struct {
	// mu guards the maps: the threads of parallel() read them while a
	// Void of one of them takes entries back.
	mu     sync.Mutex
	calls  map[Key]*Entry
	began  map[Iteration]*Entry
	ended  map[Iteration]*Entry
	record int
}

// Iteration is an iteration's place in a run: its loop's key and its
// number there.
type Iteration struct {
	Key
	N int
}

// NewBook indexes entries, in the order the journal holds them, and
// keeps them: they are not changed after. Its maps point into them, where
// maps of entries would make each entry again on the heap (an entry is
// larger than the values a map holds in place), thousands in a long run.
func NewBook(entries []Entry) *Book {
	began, ended := 0, 0
	for i := range entries {
		switch entries[i].Kind {
		case Began:
			began++
		case Ended:
			ended++
		}
	}
	b := &Book{calls: map[Key]*Entry{}, began: make(map[Iteration]*Entry, began), ended: make(map[Iteration]*Entry, ended)}
	for i := range entries {
		e := &entries[i]
		b.record = max(b.record, e.Record)
		switch e.Kind {
		case Call:
			b.calls[e.Key] = e
		case Began:
			b.began[Iteration{e.Key, e.N}] = e
		case Ended:
			b.ended[Iteration{e.Key, e.N}] = e
		case Void:
			b.void(e.Key)
		}
	}
	return b
}

// Void takes back the entries of k's thread from k on, and those of the
// threads their calls started.
func (b *Book) Void(k Key) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.void(k)
}

func (b *Book) void(k Key) {
	gone := func(of Key) bool { return after(of, k) }
	for key := range b.calls {
		if gone(key) {
			delete(b.calls, key)
		}
	}
	for _, m := range []map[Iteration]*Entry{b.began, b.ended} {
		for it := range m {
			if gone(it.Key) {
				delete(m, it)
			}
		}
	}
}

// after reports whether of is k or a later call of its thread, or a call
// of a thread that one of those started ("main/3.2" was started by the
// third call of "main").
func after(of, k Key) bool {
	if of.Thread == k.Thread {
		return of.Seq >= k.Seq
	}
	rest, ok := strings.CutPrefix(of.Thread, k.Thread+"/")
	if !ok {
		return false
	}
	first, _, _ := strings.Cut(rest, "/")
	seq, _, _ := strings.Cut(first, ".")
	n, err := strconv.Atoi(seq)
	return err == nil && n >= k.Seq
}

// Call is the recorded call at k, if there is one.
func (b *Book) Call(k Key) (Entry, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return found(b.calls[k])
}

// Ended is the recorded end of iteration n of the loop at k, if it ended.
func (b *Book) Ended(k Key, n int) (Entry, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return found(b.ended[Iteration{k, n}])
}

// Began is the recorded start of iteration n of the loop at k, if it
// began.
func (b *Book) Began(k Key, n int) (Entry, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return found(b.began[Iteration{k, n}])
}

// found is the entry e points to, if it points to one.
func found(e *Entry) (Entry, bool) {
	if e == nil {
		return Entry{}, false
	}
	return *e, true
}

// Records is the highest iteration record number the journal names: a
// resumed run numbers its new iterations after it.
func (b *Book) Records() int { return b.record }

// Branch is the thread of branch i (from 1) of the parallel() call at k.
func Branch(k Key, i int) string {
	return k.Thread + "/" + strconv.Itoa(k.Seq) + "." + strconv.Itoa(i)
}
