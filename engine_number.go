package llmmetrics

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// parseMillis parses a decimal number of milliseconds into a duration,
// rounded to the nearest nanosecond. Unlike strconv.ParseFloat it refuses
// NaN, infinities, hexadecimal floats and underscores (ErrNonFinite or
// ErrSyntax), and values whose nanoseconds do not fit in a Duration.
func parseMillis(s string) (time.Duration, error) {
	if s == "" {
		return 0, ErrMissingField
	}
	if strings.ContainsFunc(s, func(c rune) bool {
		return !(c >= '0' && c <= '9' || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-')
	}) {
		low := strings.ToLower(s)
		if strings.Contains(low, "nan") || strings.Contains(low, "inf") {
			return 0, fmt.Errorf("%w: %q", ErrNonFinite, s)
		}
		return 0, fmt.Errorf("%w: %q is not a decimal number", ErrSyntax, s)
	}
	ms, err := strconv.ParseFloat(s, 64)
	if errors.Is(err, strconv.ErrRange) || math.IsInf(ms, 0) {
		return 0, fmt.Errorf("%w: %q ms is further than %v from its boundary", ErrOutOfRange, s, time.Duration(maxTime))
	}
	if err != nil {
		return 0, fmt.Errorf("%w: %q is not a decimal number", ErrSyntax, s)
	}
	ns := math.Round(ms * 1e6)
	if math.Abs(ns) > maxTime {
		return 0, fmt.Errorf("%w: %q ms is further than %v from its boundary", ErrOutOfRange, s, time.Duration(maxTime))
	}
	return time.Duration(ns), nil
}

// formatMillis writes d in milliseconds, exactly: as many decimals as its
// nanoseconds need, none when it is whole.
func formatMillis(d time.Duration) string {
	neg := d < 0
	u := uint64(d)
	if neg {
		u = -u
	}
	s := strconv.FormatUint(u/1e6, 10)
	if f := u % 1e6; f != 0 {
		s += "." + strings.TrimRight(fmt.Sprintf("%06d", f), "0")
	}
	if neg {
		s = "-" + s
	}
	return s
}

// parseCount parses a token count: a decimal integer, possibly negative
// (validation rejects negatives, naming the field).
func parseCount(s string) (int, error) {
	if s == "" {
		return 0, ErrMissingField
	}
	n, err := strconv.ParseInt(s, 10, 32)
	if errors.Is(err, strconv.ErrRange) {
		return 0, fmt.Errorf("%w: %q is outside [%d, %d]", ErrOutOfRange, s, -maxCount, maxCount)
	}
	if err != nil {
		return 0, fmt.Errorf("%w: %q is not a whole number", ErrSyntax, s)
	}
	return int(n), nil
}
