package llmmetrics

import (
	"fmt"
	"time"

	"github.com/llmmetrics/llmmetrics/internal/csvrow"
	"github.com/llmmetrics/llmmetrics/internal/decimal"
)

// The fields of the CSV format are read by internal/decimal; these turn
// what it could not read into the root's errors.

// The bounds of internal/csvrow are the root's (the index is 0 only when
// they are equal).
var _ = [1]int{}[csvrow.MaxTime-maxTime]

// parseMillis parses a field of a decimal number of milliseconds into a
// duration, rounded to the nearest nanosecond (see decimal.Millis). An
// empty field is ErrMissingField; NaN or an infinity ErrNonFinite; a value
// whose nanoseconds do not fit in a Duration ErrOutOfRange; anything else
// that is not a decimal number (hexadecimal, underscores) ErrSyntax.
func parseMillis(b []byte) (time.Duration, error) {
	ns, why := decimal.Millis(b, maxTime)
	switch why {
	case decimal.OK:
		return time.Duration(ns), nil
	case decimal.Missing:
		return 0, ErrMissingField
	case decimal.NonFinite:
		return 0, fmt.Errorf("%w: %q", ErrNonFinite, b)
	case decimal.Range:
		return 0, fmt.Errorf("%w: %q ms is further than %v from its boundary", ErrOutOfRange, b, time.Duration(maxTime))
	}
	return 0, fmt.Errorf("%w: %q is not a decimal number", ErrSyntax, b)
}

// parseCount parses a field of a token count: a decimal integer, possibly
// negative (validation rejects negatives, naming the field).
func parseCount(b []byte) (int, error) {
	n, why := decimal.Int32(b)
	switch why {
	case decimal.OK:
		return n, nil
	case decimal.Missing:
		return 0, ErrMissingField
	case decimal.Range:
		return 0, fmt.Errorf("%w: %q is not a count of at most %d", ErrOutOfRange, b, maxCount)
	}
	return 0, fmt.Errorf("%w: %q is not a whole number", ErrSyntax, b)
}

// parseStatusBytes reads a status name, as Status.String writes it; the
// empty name is StatusOK.
func parseStatusBytes(b []byte) (Status, error) {
	for i, n := range statusNames {
		if string(b) == n {
			return Status(i), nil
		}
	}
	if len(b) == 0 {
		return StatusOK, nil
	}
	return 0, fmt.Errorf("%w: %q (want ok, error, timeout or cancelled)", ErrBadStatus, b)
}
