package journal

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"
)

// decoded holds every kind of value Decode reads, or leaves to
// encoding/json.
type decoded struct {
	S        string
	I        int
	I8       int8
	U        uint16
	F        float64
	F32      float32
	B        bool
	P        *int
	Inner    *inner
	Strings  []string
	Bytes    []byte
	Map      map[string]int
	Any      any
	Time     time.Time
	TimeP    *time.Time
	Duration time.Duration
	Array    [2]int
	Skipped  string `json:"-"`
	Dash     string `json:"-,"`
	Named    string `json:"named,omitempty"`
	Self     *decoded
	Inners   []inner
	Quoted   quoted
	Embeds   embeds
	Number   json.Number
	Raw      json.RawMessage
	Null     sawNull
	Odd      oddTags
	hidden   int
}

// sawNull says whether its own method was given null.
type sawNull bool

func (s *sawNull) UnmarshalJSON(data []byte) error {
	*s = string(data) == "null"
	return nil
}

// oddTags has names encoding/json does not take from their tags.
type oddTags struct {
	Quote  string `json:"it's"`
	Symbol string `json:"✓"`
}

type inner struct {
	N    int64  `json:"n"`
	Text string `json:"text,omitempty"`
}

// quoted and embeds are filled by encoding/json's rules of their own.
type quoted struct {
	N int `json:",string"`
}

type embeds struct {
	inner
	M int
}

// decodeSamples are results as Line writes them, and as it does not.
func decodeSamples() []string {
	n := 7
	at := time.Date(2026, 11, 29, 11, 0, 0, 0, time.UTC)
	plain, _ := json.Marshal(decoded{S: "naïve ✓", I: -42, I8: 127, U: 65535, F: 0.125, F32: 1.5e-3, B: true, P: &n,
		Inner: &inner{N: 1 << 60, Text: "x"}, Strings: []string{"a", ""}, Duration: 3 * time.Second,
		Named: "n", Inners: []inner{{N: 1}}, Self: &decoded{S: "again", Strings: []string{}}})
	rich, _ := json.Marshal(decoded{S: "line\nwith <escapes> \"quoted\"", Bytes: []byte("bytes"), Map: map[string]int{"a": 1},
		Any: []any{1.5, "x", nil}, Time: at, TimeP: &at, Array: [2]int{1, 2}, Dash: "dash", Quoted: quoted{3}, Embeds: embeds{inner{N: 2}, 4}})
	return []string{
		string(plain), string(rich), `{}`, `null`, `{"S":null,"P":null,"Strings":null,"I":null}`,
		`{"Inner":{"n":1},"Inner":null}`, `{"Map":{"a":1},"Map":null}`, `{"I":1,"I":2}`,
		`{"unknown":1,"S":"kept"}`, `{"s":"any case"}`, `{"I":1.5}`, `{"I":4.5e6}`, `{"I8":128}`, `{"U":-1}`,
		`{"F":1e400}`, `{"I":99999999999999999999}`, `{"I":-0}`, `{"I":01}`, `{"S":"\u00e9\ud83d\ude00"}`,
		`{"S":"bad utf8 ` + "\xff" + `"}`, `{"B":tru}`, `{"B":"true"}`, `{"S":1}`, `{"Strings":[1]}`, `{"Strings":["a",]}`,
		`{"Self":{"Self":{"S":"deep"}}}`, `{"Inners":[{"n":1,"text":"a"},{"n":2}]}`, `{"Skipped":"no"}`, `{"-":"dash"}`,
		`{"hidden":1}`, `{"U":-0}`, `{"U":-1}`, `{"Number":"12"}`, `{"Number":"abc"}`, `{"Number":""}`,
		`{"Raw":null}`, `{"Raw":{"a":[1]}}`, `{"Null":null}`, `{"Null":1}`, `{"Inners":[{"n":1,"text":"a"}],"Inners":[{"n":2}]}`,
		`{"Odd":{"it's":"x","✓":"y"}}`, `{"Odd":{"Quote":"q","Symbol":"s"}}`, `{"S":"a"} `, ` {"S":"a"}`, `{"S" :"a"}`, `[]`, `{"Time":"not a time"}`, `{"Quoted":{"N":"5"}}`, `{"Quoted":{"N":5}}`, `{"Embeds":{"n":5}}`,
	}
}

// TestDecodeReadsAsJSONDoes: whatever the result, Decode gives what
// json.Unmarshal gives into a zero value, and refuses what it refuses.
func TestDecodeReadsAsJSONDoes(t *testing.T) {
	for _, data := range decodeSamples() {
		sameAsJSON(t, []byte(data))
	}
}

// TestDecodeReadsWhatLineWritesItself: a result as Line writes one is
// read by the fast path, not handed whole to encoding/json, escapes,
// maps and times included (those values alone are encoding/json's); a
// key no field has is.
func TestDecodeReadsWhatLineWritesItself(t *testing.T) {
	samples := decodeSamples()
	for _, data := range samples[:2] {
		if !decodeFast([]byte(data), reflect.ValueOf(new(decoded))) {
			t.Errorf("the fast path left a result to encoding/json: %s", data)
		}
	}
	if decodeFast([]byte(`{"unknown":1}`), reflect.ValueOf(new(decoded))) {
		t.Error("the fast path read a key no field has")
	}
}

// TestDecodeReplacesWhatWasThere: what v held before is not part of the
// result.
func TestDecodeReplacesWhatWasThere(t *testing.T) {
	v := decoded{S: "before", Strings: []string{"old"}}
	if err := Decode([]byte(`{"I":1}`), &v); err != nil || !reflect.DeepEqual(v, decoded{I: 1}) {
		t.Fatalf("Decode gave %+v, %v", v, err)
	}
}

func sameAsJSON(t *testing.T, data []byte) {
	t.Helper()
	var got, want decoded
	gotErr, wantErr := Decode(data, &got), json.Unmarshal(data, &want)
	if (gotErr == nil) != (wantErr == nil) || !reflect.DeepEqual(got, want) {
		t.Fatalf("%q: Decode gave %+v, %v; json.Unmarshal %+v, %v", data, got, gotErr, want, wantErr)
	}
}

// FuzzDecode: whatever the bytes, Decode reads them as json.Unmarshal
// does.
func FuzzDecode(f *testing.F) {
	for _, data := range decodeSamples() {
		f.Add([]byte(data))
	}
	f.Fuzz(func(t *testing.T, data []byte) { sameAsJSON(t, data) })
}

// linked holds itself; no other test decodes it, so that its decoders
// are made here.
type linked struct {
	Next *linked
	S    string
}

// TestDecodersArePublishedWhole: the decoders of a type that holds
// itself, and of a pointer to it, made together, are published only once
// both are whole: another goroutine that met the pointer's first would
// call the type's before it was made.
func TestDecodersArePublishedWhole(t *testing.T) {
	making.Lock()
	decoderMade(reflect.TypeFor[linked]())
	_, early := decoders.Load(reflect.TypeFor[*linked]())
	clear(building)
	making.Unlock()
	if early {
		t.Fatal("the decoder of *linked was published while that of linked was made")
	}
	var got *linked
	if err := Decode([]byte(`{"Next":{"Next":{"S":"c"},"S":"b"},"S":"a"}`), &got); err != nil || got.S != "a" || got.Next.Next.S != "c" {
		t.Fatalf("decoded %+v, %v", got, err)
	}
}
