// Package errlist joins the errors of many records into one error: its
// message counts them and shows the first few, and errors.Is and
// errors.As see every one kept.
package errlist

import (
	"fmt"
	"strings"
)

// Shown is how many errors a List's message shows.
const Shown = 5

// A List is the errors of records: Errs kept, Unlisted more counted but
// not kept, and Kind, when not nil, the sentinel they all stand under.
// Its message is Head, then the first Shown errors without Prefix, then
// how many more there are.
type List[E error] struct {
	Errs     []E
	Unlisted int
	Kind     error
	Head     string
	Prefix   string
}

func (l *List[E]) Error() string {
	var b strings.Builder
	b.WriteString(l.Head)
	for _, e := range l.Errs[:min(len(l.Errs), Shown)] {
		b.WriteString("; ")
		b.WriteString(strings.TrimPrefix(e.Error(), l.Prefix))
	}
	if more := len(l.Errs) + l.Unlisted - min(len(l.Errs), Shown); more > 0 {
		fmt.Fprintf(&b, "; and %d more", more)
	}
	return b.String()
}

// Unwrap returns Kind, when it is not nil, and every error kept.
func (l *List[E]) Unwrap() []error {
	out := make([]error, 0, len(l.Errs)+1)
	if l.Kind != nil {
		out = append(out, l.Kind)
	}
	for _, e := range l.Errs {
		out = append(out, e)
	}
	return out
}
