// Package outofcore finds the moments and exact order statistics of a
// sample too large to hold, from a source it reads several times, in
// memory bounded by a budget of bytes whatever the sample's size.
//
// The first pass gathers the moments (count, extremes, exact sum and sum
// of squares; see exact.Moments) and counts the values into bins of
// logarithmic width (see logBins); the cumulative counts tell which bin
// holds each wanted rank. A later pass copies out only the values of
// those bins and sorts them, where they fit the budget; a bin too full to
// hold is first counted again, by another pass, into equal-width bins of
// its own range, and so on until each fits or holds one value. Memory is
// the bins' counts and the values copied out, never the sample.
//
// The ranks, and the percentiles by rank (Quantiles), are those of
// internal/order, so the values found are those order.Select and
// order.Quantiles find in memory, bit for bit.
package outofcore

import (
	"errors"
	"time"
)

// A Source yields the values of a sample, a segment at a time, each time it
// is called; each call must yield the same values, in any order. A
// segment is read only during the call of yield that hands it over, so
// the source may reuse it. The source stops early, returning nil, when
// yield returns false; it returns an error when it cannot be read.
type Source func(yield func(seg []time.Duration) bool) error

// Stats say what a selection cost.
type Stats struct {
	Passes int // reads of the source
	Held   int // the most bytes of counts and values held at once
}

// MinBudget is the smallest budget, in bytes, a selection takes.
const MinBudget = 4 << 10

var (
	// ErrBudget is returned for a budget below MinBudget, or too small
	// for the number of ranks asked (64 bytes each).
	ErrBudget = errors.New("outofcore: budget too small")
	// ErrChanged is returned when a pass of the source does not yield
	// the values the first pass did.
	ErrChanged = errors.New("outofcore: source changed between passes")
)
