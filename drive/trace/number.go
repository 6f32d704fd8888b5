package trace

import (
	"math"
	"strconv"
	"strings"
	"time"
)

// parseTime reads a time of a trace, a decimal number of units (a second,
// a millisecond), exactly to the nanosecond: the digits are read as
// digits, never through a float, so that 1.0000001 s is 1,000,000,100 ns.
// A number with an exponent is read through a float and rounded.
func parseTime(s string, unit time.Duration) (time.Duration, bool) {
	neg := strings.HasPrefix(s, "-")
	digits := strings.TrimPrefix(s, "-")
	whole, frac, _ := strings.Cut(digits, ".")
	if whole == "" || !allDigits(whole) || !allDigits(frac) || strings.HasPrefix(s, "+") {
		f, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || math.Abs(f*float64(unit)) > math.MaxInt64/2 {
			return 0, false
		}
		return time.Duration(math.Round(f * float64(unit))), true
	}
	w, err := strconv.ParseInt(whole, 10, 64)
	if err != nil || w > math.MaxInt64/int64(unit)/2 {
		return 0, false
	}
	d := time.Duration(w) * unit
	scale := unit / 10
	for i := 0; i < len(frac) && scale > 0; i++ {
		d += time.Duration(frac[i]-'0') * scale
		scale /= 10
	}
	if neg {
		d = -d
	}
	return d, true
}

func allDigits(s string) bool {
	for i := range len(s) {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// parseLength reads a length in tokens: a whole number.
func parseLength(s string) (int, bool) {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	return n, err == nil
}
