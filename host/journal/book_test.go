package journal

import "testing"

// TestVoidTakesBackALaterPart: a Void at a call takes back that call and
// the later ones of its thread, with every thread they started, and
// leaves the calls before it and other threads' alone.
func TestVoidTakesBackALaterPart(t *testing.T) {
	k := func(thread string, seq int) Key { return Key{thread, seq} }
	entries := []Entry{
		{Kind: Call, Key: k("main", 1)},
		{Kind: Call, Key: k("main", 2)},
		{Kind: Call, Key: k(Branch(k("main", 2), 1), 1)},
		{Kind: Call, Key: k("main", 3)},
		{Kind: Ended, Key: k(Branch(k("main", 3), 2), 1), N: 1, Record: 4},
		{Kind: Call, Key: k(Branch(k("main", 1), 1), 1)},
		{Kind: Call, Key: k("main2", 5)},
		{Kind: Void, Key: k("main", 2)},
		{Kind: Call, Key: k("main", 2), Op: "new"},
	}
	b := NewBook(entries)
	kept := []Key{k("main", 1), k(Branch(k("main", 1), 1), 1), k("main2", 5)}
	for _, key := range kept {
		if _, ok := b.Call(key); !ok {
			t.Errorf("%v was taken back", key)
		}
	}
	for _, key := range []Key{k(Branch(k("main", 2), 1), 1), k("main", 3)} {
		if _, ok := b.Call(key); ok {
			t.Errorf("%v was kept", key)
		}
	}
	if _, ok := b.Ended(k(Branch(k("main", 3), 2), 1), 1); ok {
		t.Error("an iteration of a branch started by a later call was kept")
	}
	if e, _ := b.Call(k("main", 2)); e.Op != "new" {
		t.Errorf("the call appended after the void: %+v", e)
	}
	if b.Records() != 4 {
		t.Errorf("records: %d", b.Records())
	}
}
