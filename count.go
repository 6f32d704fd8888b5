package llmmetrics

import (
	"fmt"
	"strings"
)

// CountState says whether a successful record's CompletionTokens is a
// server count its chunks agree with. TTFT, E2E, the chunk gaps and the
// largest gap need no count and are kept for every ok record; TPOT, User
// TPS, the token rates, the output-length workload and strata, and the
// TPOT limit of an SLO need one, and leave the others out, counted by
// reason in Accounting.
type CountState uint8

const (
	// CountKnown: n is the server's count and no fewer than the chunks.
	CountKnown CountState = iota
	// CountNoUsage: the server sent no usage (Record.NoUsage), as for
	// most OpenAI clients, which do not ask for stream_options.include_usage.
	CountNoUsage
	// CountZeroUsage: usage reported no output token, though text-bearing
	// chunks arrived.
	CountZeroUsage
	// CountBelowChunks: the count is below the number of text-bearing
	// chunks, each of which carries at least one token (a count taken by
	// re-tokenizing the text, for instance).
	CountBelowChunks
)

var countNames = [...]string{"counted", "no_usage", "zero_usage", "below_chunks"}

// String returns the state's name as reports write it: counted, no_usage,
// zero_usage or below_chunks.
func (c CountState) String() string { return nameOf(countNames[:], c, "CountState") }

// CountState returns the state of the record's token count. It is
// meaningful for ok records; a failed or zero-token record has no text to
// count and reads CountKnown.
func (r *Record) CountState() CountState {
	switch {
	case r.NoUsage:
		return CountNoUsage
	case len(r.Chunks) <= r.CompletionTokens:
		return CountKnown
	case r.CompletionTokens == 0:
		return CountZeroUsage
	}
	return CountBelowChunks
}

// counted reports whether the record's n can be used: a server count that
// its chunks do not contradict.
func (r *Record) counted() bool { return !r.NoUsage && len(r.Chunks) <= r.CompletionTokens }

// countError returns the error of a figure that needs the token count of
// a record that has none (ErrNoCount), with its reason.
func (r *Record) countError() error {
	switch r.CountState() {
	case CountNoUsage:
		return fmt.Errorf("%w: the server reported no usage", ErrNoCount)
	case CountZeroUsage:
		return fmt.Errorf("%w: usage reported 0 output tokens for %d text-bearing chunks", ErrNoCount, len(r.Chunks))
	case CountBelowChunks:
		return fmt.Errorf("%w: %w (%d tokens, %d chunks)", ErrNoCount, ErrTokensBelowChunks, r.CompletionTokens, len(r.Chunks))
	}
	return nil
}

// Uncounted counts the ok requests without a usable token count, by
// reason (see CountState). They are latency samples for TTFT, E2E and the
// gaps, and left out of what needs n.
type Uncounted struct {
	NoUsage, ZeroUsage, BelowChunks int
}

// Total returns the number of ok requests without a usable count.
func (u Uncounted) Total() int { return u.NoUsage + u.ZeroUsage + u.BelowChunks }

func (u *Uncounted) add(s CountState) {
	if n := [...]*int{CountNoUsage: &u.NoUsage, CountZeroUsage: &u.ZeroUsage, CountBelowChunks: &u.BelowChunks}[s]; n != nil {
		*n++
	}
}

// why names the reasons of the uncounted requests, with their numbers
// where there are several: "no usage", "2 no usage, 1 usage of zero".
func (u Uncounted) why() string { return u.reasons("%d with %s") }

// reasons names the reasons with their numbers, but for one reason that
// covers them all, which is written by all: "%[2]s" names it alone.
func (u Uncounted) reasons(all string) string {
	var why []string
	for _, c := range [...]struct {
		n    int
		what string
	}{{u.NoUsage, "no usage"}, {u.ZeroUsage, "usage of zero"}, {u.BelowChunks, "count below the chunks"}} {
		switch {
		case c.n == u.Total():
			why = append(why, fmt.Sprintf(all, c.n, c.what))
		case c.n > 0:
			why = append(why, fmt.Sprintf("%d %s", c.n, c.what))
		}
	}
	return strings.Join(why, ", ")
}

// leftOut says, for the line of a report that counts ok ones, how many of
// the ok requests the output rate leaves out and why, or "" when it
// leaves out none: "; the output rate counts 86 of them, 3 left out
// (count below the chunks)".
func (u Uncounted) leftOut(ok int) string {
	if u.Total() == 0 {
		return ""
	}
	return fmt.Sprintf("; the output rate counts %d of them, %d left out (%s)", ok-u.Total(), u.Total(), u.reasons("%[2]s"))
}
