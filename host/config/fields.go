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
}

type typed[T any] struct {
	v *Value[T]
	parser[T]
}

func bind[T any](key string, v *Value[T], p parser[T]) field {
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
func (t typed[T]) format() string          { return t.parser.format(t.v.V) }

// fields lists the settings a procedure can override; the AI command's
// two come last (Loop.fields relies on it).
func (l *Limits) fields() []field {
	return []field{
		bind("iteration_mode", &l.IterationMode, oneOf(iterationModes...)),
		bind("default_max_iterations", &l.DefaultMaxIterations, atLeast(1)),
		bind("iteration_timeout", &l.IterationTimeout, timeout),
		bind("max_output_buffer", &l.MaxOutputBuffer, size(1024)),
		bind("failure_threshold", &l.FailureThreshold, atLeast(1)),
		bind("min_iterations", &l.MinIterations, atLeast(1)),
		bind("digest", &l.Digest, boolean),
		bind("ai_cmd", &l.AICmd, command),
		bind("ai_cmd_alias", &l.AICmdAlias, name),
	}
}

func (l *Loop) fields() []field {
	limits := l.Limits.fields()
	// The loop's own keys go before the AI command's two, which Limits
	// lists last, so that files read in the order people write them.
	n := len(limits) - 2
	own := []field{
		bind("log_level", &l.LogLevel, oneOf(logLevels...)),
		bind("show_ai_output", &l.ShowAIOutput, boolean),
		bind("log_format", &l.LogFormat, oneOf(logFormats...)),
		bind("runs_dir", &l.RunsDir, text),
		bind("keep_runs", &l.KeepRuns, atLeast(1)),
		bind("max_memory", &l.MaxMemory, size(MinMaxMemory)),
	}
	return append(append(limits[:n:n], own...), limits[n:]...)
}

// fields lists the procedure's plain keys; its phases and script are
// decoded on their own because they hold paths.
func (p *Procedure) fields() []field {
	return append([]field{
		bind("display", &p.Display, text),
		bind("summary", &p.Summary, text),
		bind("description", &p.Description, text),
	}, p.Limits.fields()...)
}

// mergeFields merges each field of from into the same field of into; both
// lists come from the same fields method.
func mergeFields(into, from []field) {
	for i := range into {
		into[i].mergeFrom(from[i].setting)
	}
}

// Set sets the setting named key ("max_output_buffer") from text, with the
// rules and messages of a configuration file: how a script's iterate()
// arguments become a tier of their own. An alias must still be checked
// against the known ones (CheckAlias).
func (l *Limits) Set(key, text string, src Source) error {
	for _, f := range l.fields() {
		if f.key == key {
			return f.assign(text, src, 0)
		}
	}
	return fmt.Errorf("unknown setting %s", key)
}
