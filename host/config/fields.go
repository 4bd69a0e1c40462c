package config

import "fmt"

// A field binds one key of the schema to the Value it fills. The same
// table drives decoding a file, reading the environment, merging tiers
// and printing the configuration, so a key is declared once.
type field struct {
	key string
	setting
}

// setting is a Value with its parser, its type erased so that fields of
// different types fit one table.
type setting interface {
	// assign parses text, from a file or the environment, and sets the value.
	assign(text string, src Source, line int) error
	// mergeFrom takes other's value if other was set; other must be a
	// setting of the same field.
	mergeFrom(other setting)
	isSet() bool
	origin() Source
	// where is the source with its line, for messages.
	where() string
	// format is the value as it would be written in rooda-config.yml.
	format() string
	// separator joins a YAML list's items for assign; "" when the
	// setting is no list.
	separator() string
}

type typed[T any] struct {
	v *Value[T]
	Parser[T]
}

func bind[T any](key string, v *Value[T], p Parser[T]) field {
	return field{key, typed[T]{v, p}}
}

func (t typed[T]) assign(text string, src Source, line int) error {
	x, err := t.parse(text)
	if err != nil {
		return err
	}
	*t.v = Value[T]{V: x, Set: true, Source: src, Line: line}
	return nil
}

func (t typed[T]) mergeFrom(other setting) { t.v.override(*other.(typed[T]).v) }
func (t typed[T]) isSet() bool             { return t.v.Set }
func (t typed[T]) origin() Source          { return t.v.Source }
func (t typed[T]) where() string           { return t.v.Where() }
func (t typed[T]) format() string          { return t.Parser.format(t.v.V) }
func (t typed[T]) separator() string       { return t.sep }

// slot is a row of the table in one tier's Limits.
type slot struct {
	l   *Limits
	row *Setting
}

func (s slot) assign(text string, src Source, line int) error {
	v, err := s.row.parse(text)
	if err != nil {
		return err
	}
	s.l.put(s.row.Key, stored{v, src, line})
	return nil
}

func (s slot) mergeFrom(other setting) {
	if v, ok := other.(slot).stored(); ok {
		s.l.put(s.row.Key, v)
	}
}

func (s slot) stored() (stored, bool) {
	v, ok := s.l.values[s.row.Key]
	return v, ok
}

func (s slot) isSet() bool {
	_, ok := s.stored()
	return ok
}

func (s slot) origin() Source {
	v, _ := s.stored()
	return v.src
}

func (s slot) where() string {
	v, _ := s.stored()
	return v.value().Where()
}

func (s slot) separator() string { return s.row.sep }

func (s slot) format() string {
	v, _ := s.stored()
	return s.row.format(v.v)
}

// fields lists the settings of the table that l may hold: every one for
// the loop, those a procedure can override for a procedure, iterate() and
// the command line's run tier.
func (l *Limits) fields(loop bool) []field {
	return l.appendFields(make([]field, 0, len(table)), loop)
}

// appendFields appends l's fields to out: a list made at its full size
// once, where growing it as it was filled was a quarter of what decoding
// the built-in configuration allocated at each start.
func (l *Limits) appendFields(out []field, loop bool) []field {
	for _, row := range table {
		if loop || row.Scope == PerProcedure {
			out = append(out, field{row.Key, slot{l, row}})
		}
	}
	return out
}

// fields lists the procedure's plain keys; its phases and script are
// decoded on their own because they hold paths.
func (p *Procedure) fields() []field {
	out := make([]field, 0, len(procedureTexts)+len(table))
	for _, t := range procedureTexts {
		out = append(out, bind(t.key, t.of(p), Text))
	}
	return p.Limits.appendFields(out, false)
}

// procedureTexts are a procedure's own plain keys; the rest are settings
// of the table.
var procedureTexts = [...]struct {
	key string
	of  func(*Procedure) *Value[string]
}{
	{"display", func(p *Procedure) *Value[string] { return &p.Display }},
	{"summary", func(p *Procedure) *Value[string] { return &p.Summary }},
	{"description", func(p *Procedure) *Value[string] { return &p.Description }},
}

// field is the procedure's field of key, one of its plain keys, made
// alone: decoding made every field of a procedure to fill three or four,
// a third of what decoding the built-in configuration allocated.
func (p *Procedure) field(key string) field {
	for _, t := range procedureTexts {
		if t.key == key {
			return bind(key, t.of(p), Text)
		}
	}
	return field{key, slot{&p.Limits, rowOf(key)}}
}

// mergeFields merges each field of from into the same field of into; both
// lists come from the same fields method.
func mergeFields(into, from []field) {
	for i := range into {
		into[i].mergeFrom(from[i].setting)
	}
}

// Assignment is a setting a script gives iterate(): the key, the text its
// parser reads, and the keyword as the script wrote it, for messages
// ("max_iterations", "unlimited=True").
type Assignment struct{ Key, Text, By string }

// Assign sets what a script gave iterate(), with the rules and messages
// of a configuration file: how a script's arguments become a tier of
// their own. Two keywords that set one thing (max_iterations and
// unlimited=True) are an error rather than a silent choice. An alias must
// still be checked against the known ones (CheckAlias).
func (l *Limits) Assign(given []Assignment, src Source) error {
	setBy := map[string]string{}
	for _, a := range given {
		row := rowOf(a.Key)
		if row == nil {
			return fmt.Errorf("unknown setting %s", a.Key)
		}
		if first, dup := setBy[row.conflictKey()]; dup {
			return fmt.Errorf("%s and %s cannot be used together", first, a.By)
		}
		setBy[row.conflictKey()] = a.By
	}
	for _, a := range given {
		if err := l.Set(a.Key, a.Text, src); err != nil {
			return fmt.Errorf("%s %w", a.By, err)
		}
	}
	return nil
}

// Set sets the setting named key ("max_output_buffer") from text, with the
// rules and messages of a configuration file.
func (l *Limits) Set(key, text string, src Source) error {
	for _, f := range l.fields(false) {
		if f.key == key {
			return f.assign(text, src, 0)
		}
	}
	return fmt.Errorf("unknown setting %s", key)
}
