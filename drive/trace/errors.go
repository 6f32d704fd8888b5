package trace

import (
	"errors"
	"fmt"
)

// The reasons a trace cannot be replayed, for errors.Is.
var (
	ErrFormat      = errors.New("not a trace format this reads (azure, mooncake, burstgpt or llmmetrics)")
	ErrMissing     = errors.New("missing")
	ErrNotNumber   = errors.New("not a number")
	ErrNotTime     = errors.New("not a time")
	ErrNegative    = errors.New("negative")
	ErrUnsorted    = errors.New("earlier than the row before it: a trace's rows come in time order")
	ErrZero        = errors.New("a length of zero: every request has a prompt and an output")
	ErrEmptyWindow = errors.New("no row")
	ErrEmptyFile   = errors.New("the file is empty: no line holds anything")
)

// An Error is a trace that cannot be replayed: the file, the line (1 is
// the first; 0 for the whole file), the field ("" for none), the value
// found and why.
type Error struct {
	File  string
	Line  int
	Field string
	Value string
	Err   error
}

func (e *Error) Error() string {
	where := e.File
	if e.Line > 0 {
		where = fmt.Sprintf("%s:%d", e.File, e.Line)
	}
	switch {
	case e.Value != "":
		return fmt.Sprintf("%s: %s %q: %v", where, e.Field, e.Value, e.Err)
	case e.Field == "":
		return fmt.Sprintf("%s: %v", where, e.Err)
	}
	return fmt.Sprintf("%s: %s: %v", where, e.Field, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }
