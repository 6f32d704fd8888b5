package main

import (
	"errors"
	"flag"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// A numberKind is what a numeric flag takes: a whole number (int, int64,
// uint, uint64, a token count), a real number (float64) or a duration.
type numberKind uint8

const (
	notNumeric numberKind = iota
	wholeNumber
	realNumber
	durationNumber
)

// kindOf returns what a flag's value takes, by the type its Get returns;
// notNumeric for anything else (strings, booleans, lists).
func kindOf(v flag.Value) numberKind {
	g, ok := v.(flag.Getter)
	if !ok {
		return notNumeric
	}
	switch g.Get().(type) {
	case int, int64, uint, uint64:
		return wholeNumber
	case float64:
		return realNumber
	case time.Duration:
		return durationNumber
	}
	return notNumeric
}

// guardNumbers has every numeric flag of fs keep the first value given to
// it that does not parse, told in one line naming the flag and the value
// (see numberKind.why), in the place it returns: the error parseInterleaved
// gives in place of the flag package's, which would print the usage. A
// value that parses is checked by checkNumbers.
func guardNumbers(fs *flag.FlagSet) *error {
	bad := new(error)
	fs.VisitAll(func(f *flag.Flag) {
		if _, done := f.Value.(*guarded); done {
			return
		}
		if k := kindOf(f.Value); k != notNumeric {
			f.Value = &guarded{Getter: f.Value.(flag.Getter), name: f.Name, kind: k, bad: bad}
		}
	})
	return bad
}

// guarded is a numeric flag's value that keeps the first value it could
// not parse, with the reason.
type guarded struct {
	flag.Getter
	name string
	kind numberKind
	bad  *error
}

func (g *guarded) Set(s string) error {
	err := g.Getter.Set(s)
	if err != nil && *g.bad == nil {
		shown := s
		if strings.TrimSpace(s) == "" {
			shown = strconv.Quote(s)
		}
		*g.bad = valueError(fmt.Sprintf("--%s %s: %s", g.name, shown, g.kind.why(s, err)))
	}
	return err
}

// A flagReason is a flag value's own reason for refusing a value (a
// token count's spread, say), which guarded gives as it is.
type flagReason string

func (r flagReason) Error() string { return string(r) }

// why says why s is not a value of kind k, given the error its Set gave.
func (k numberKind) why(s string, err error) string {
	var own flagReason
	if errors.As(err, &own) {
		return string(own)
	}
	t := strings.TrimSpace(s)
	f, ferr := strconv.ParseFloat(t, 64)
	switch k {
	case durationNumber:
		return "not a duration: want a number with a unit, such as 30s, 500ms or 2m"
	case realNumber:
		if errors.Is(ferr, strconv.ErrRange) {
			return "out of range"
		}
		return "not a number"
	}
	switch {
	case ferr != nil && !errors.Is(ferr, strconv.ErrRange), math.IsNaN(f), math.IsInf(f, 0), f != math.Trunc(f):
		return "not a whole number"
	case f < 0:
		return "must not be negative"
	case strings.Trim(t, "+0123456789") == "":
		return "out of range"
	}
	return "want a whole number in digits, such as " + strconv.FormatFloat(f, 'f', -1, 64)
}
