package journal

import (
	"encoding"
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"unicode"
)

// A resume decodes the result of every iteration its journal holds, and
// encoding/json spends most of that checking each twice over and finding
// each field's type anew. Decode reads a result as Line wrote it in one
// pass, by the reader fastEntry uses, into the plain Go values the
// journal keeps (structs, pointers, strings, numbers, bools, slices),
// with a decoder made once for each type; whatever else it meets (a map,
// an interface, a time, a string with escapes) is encoding/json's, for
// that value alone, and whatever it does not read exactly as
// json.Unmarshal would makes the whole json.Unmarshal's.

// Decode decodes data, an entry's result, into v, a pointer, as
// json.Unmarshal decodes it into a zero value: what v pointed to is
// replaced, not added to. A value's own UnmarshalJSON may be called
// again, when the whole is left to json.Unmarshal after it.
func Decode(data []byte, v any) error {
	p := reflect.ValueOf(v)
	if p.Kind() != reflect.Pointer || p.IsNil() {
		return json.Unmarshal(data, v)
	}
	if decodeFast(data, p) {
		return nil
	}
	p.Elem().SetZero() // what the fast path read of it is no part of it
	return json.Unmarshal(data, v)
}

// decodeFast is Decode's fast path: false where it leaves data to
// json.Unmarshal.
func decodeFast(data []byte, p reflect.Value) bool {
	p.Elem().SetZero()
	r := reader{data: data}
	return decoderOf(p.Type().Elem())(&r, p.Elem(), 0) && r.at == len(data)
}

// A decoder reads the value at r.at into v, held at depth: false where
// it leaves the whole to json.Unmarshal.
type decoder func(r *reader, v reflect.Value, depth int) bool

// decoders are the decoders made, by type, each published once whole:
// making is held while decoders are made, and building holds those of
// the build under way, where a type that holds itself (through a pointer
// or a slice) finds its own unfinished. They are published as the build
// ends, so that no other goroutine meets one unfinished.
var (
	decoders sync.Map // reflect.Type → decoder
	making   sync.Mutex
	building = map[reflect.Type]*decoder{}
)

var (
	unmarshaler     = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
	number          = reflect.TypeFor[json.Number]()
)

func decoderOf(t reflect.Type) decoder {
	if d, ok := decoders.Load(t); ok {
		return d.(decoder)
	}
	making.Lock()
	defer making.Unlock()
	d := decoderMade(t)
	for t, d := range building {
		decoders.Store(t, *d)
	}
	clear(building)
	return d
}

// decoderMade is decoderOf with making held, publishing nothing.
func decoderMade(t reflect.Type) decoder {
	if d, ok := decoders.Load(t); ok {
		return d.(decoder)
	}
	if d, ok := building[t]; ok {
		if *d != nil {
			return *d
		}
		return func(r *reader, v reflect.Value, depth int) bool { return (*d)(r, v, depth) }
	}
	d := new(decoder)
	building[t] = d
	*d = makeDecoder(t)
	return *d
}

func makeDecoder(t reflect.Type) decoder {
	if t == number || t.Kind() != reflect.Pointer && (reflect.PointerTo(t).Implements(unmarshaler) || reflect.PointerTo(t).Implements(textUnmarshaler)) {
		// null too: json.Unmarshal gives it to the type's own method.
		return delegate
	}
	return nullable(t, kindDecoder(t))
}

// nullable is d for a value that may be null: null sets what can be nil
// to nil and leaves the rest, as json.Unmarshal does for a type with no
// method of its own to decode it.
func nullable(t reflect.Type, d decoder) decoder {
	nils := false
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Map, reflect.Interface:
		nils = true
	}
	return func(r *reader, v reflect.Value, depth int) bool {
		if depth >= maxDepth || r.at >= len(r.data) {
			return false
		}
		if r.data[r.at] != 'n' {
			return d(r, v, depth)
		}
		if nils {
			v.SetZero()
		}
		return r.literal("null")
	}
}

// kindDecoder is the decoder of a value of t, not null, by its kind.
func kindDecoder(t reflect.Type) decoder {
	switch t.Kind() {
	case reflect.Pointer:
		elem := decoderMade(t.Elem())
		return func(r *reader, v reflect.Value, depth int) bool {
			if v.IsNil() {
				v.Set(reflect.New(t.Elem()))
			}
			return elem(r, v.Elem(), depth)
		}
	case reflect.Struct:
		return objectDecoder(t)
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return delegate // base64
		}
		return arrayDecoder(t)
	case reflect.String:
		return decodeString
	case reflect.Bool:
		return decodeBool
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return decodeInt
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return decodeUint
	case reflect.Float32, reflect.Float64:
		return decodeFloat
	}
	return delegate // a map, an interface, an array
}

// delegate has json.Unmarshal read the value at r.at into v.
func delegate(r *reader, v reflect.Value, depth int) bool {
	start := r.at
	return r.skip(depth) && json.Unmarshal(r.data[start:r.at], v.Addr().Interface()) == nil
}

func decodeString(r *reader, v reflect.Value, depth int) bool {
	start := r.at
	if s, ok := r.strBytes(); ok {
		v.SetString(string(s))
		return true
	}
	r.at = start
	return delegate(r, v, depth) // escapes
}

func decodeBool(r *reader, v reflect.Value, _ int) bool {
	if r.literal("true") {
		v.SetBool(true)
		return true
	}
	return r.literal("false")
}

func decodeInt(r *reader, v reflect.Value, _ int) bool {
	n, ok := r.int()
	if !ok || v.OverflowInt(n) {
		return false
	}
	v.SetInt(n)
	return true
}

func decodeUint(r *reader, v reflect.Value, _ int) bool {
	if r.take('-') {
		return false // -0 too, which json.Unmarshal refuses an unsigned value
	}
	n, ok := r.int()
	if !ok || v.OverflowUint(uint64(n)) {
		return false
	}
	v.SetUint(uint64(n))
	return true
}

func decodeFloat(r *reader, v reflect.Value, _ int) bool {
	start := r.at
	if !r.number() {
		return false
	}
	f, err := strconv.ParseFloat(string(r.data[start:r.at]), v.Type().Bits())
	if err != nil || v.OverflowFloat(f) {
		return false
	}
	v.SetFloat(f)
	return true
}

// arrayDecoder reads an array into a slice of t, as json.Unmarshal does:
// [] is an empty slice, not nil.
func arrayDecoder(t reflect.Type) decoder {
	elem := decoderMade(t.Elem())
	return func(r *reader, v reflect.Value, depth int) bool {
		// One already there (a key given twice) is decoded into by
		// json.Unmarshal, its elements kept: it is json.Unmarshal's.
		if !v.IsNil() || !r.take('[') {
			return false
		}
		v.Set(reflect.MakeSlice(t, 0, 0))
		for first := true; !r.take(']'); first = false {
			if !first && !r.take(',') {
				return false
			}
			e := reflect.New(t.Elem()).Elem()
			if !elem(r, e, depth+1) {
				return false
			}
			v.Set(reflect.Append(v, e))
		}
		return true
	}
}

// field is a struct's field as an object's key names it.
type field struct {
	index  int
	decode decoder
}

// objectDecoder reads an object into a struct of t, by its fields' JSON
// names; a struct json.Unmarshal fills by rules of its own (an embedded
// field, a ",string" option, two fields of one name, a tag's name it may
// not take) is its.
func objectDecoder(t reflect.Type) decoder {
	byName := map[string]field{}
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		name, opts, _ := strings.Cut(tag, ",")
		if name == "" {
			name = f.Name
		}
		_, twice := byName[name]
		switch {
		case f.Anonymous || strings.Contains(","+opts+",", ",string,") || twice || !plainName(name):
			return delegate
		case f.IsExported() && tag != "-":
			byName[name] = field{i, decoderMade(f.Type)}
		}
	}
	return func(r *reader, v reflect.Value, depth int) bool {
		if !r.take('{') {
			return false
		}
		for first := true; !r.take('}'); first = false {
			if !first && !r.take(',') {
				return false
			}
			key, ok := r.strBytes()
			f, known := byName[string(key)]
			if !ok || !known || !r.take(':') || !f.decode(r, v.Field(f.index), depth+1) {
				return false
			}
		}
		return true
	}
}

// plainName reports whether name is made of letters, digits, '_' and
// '-': a key encoding/json takes from a tag as it is. It passes over
// some other names (a quote, a symbol), and the journal's keys need none.
func plainName(name string) bool {
	for _, c := range name {
		if !unicode.IsLetter(c) && !unicode.IsDigit(c) && c != '_' && c != '-' {
			return false
		}
	}
	return true
}
