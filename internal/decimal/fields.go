package decimal

import (
	"errors"
	"math"
	"strconv"
	"strings"
)

// Why is why a field of a number could not be read; OK when it could.
type Why uint8

const (
	OK        Why = iota
	Missing       // the field is empty
	NonFinite     // NaN or an infinity
	Syntax        // not a decimal number (or, for a count, not a whole one)
	Range         // beyond the bound
)

// Millis reads the field b, a decimal number of milliseconds, as whole
// nanoseconds, rounded to the nearest, within ±max. Unlike
// strconv.ParseFloat it refuses NaN, infinities, hexadecimal floats and
// underscores. A plain decimal of at most 15 digits is converted here: its
// digits make an integer that a float64 holds exactly, and Float gives the
// float64 strconv.ParseFloat gives. Anything else is left to MillisPlain,
// its twin.
func Millis(b []byte, max float64) (int64, Why) {
	i, neg := 0, false
	if len(b) > 0 && (b[0] == '-' || b[0] == '+') {
		i, neg = 1, b[0] == '-'
	}
	m, n, digits, decimals := Plain(b[i:])
	if i+n != len(b) || digits == 0 || digits > 15 {
		return MillisPlain(string(b), max)
	}
	if ns, ok := MillisNanos(m, digits, decimals); ok {
		if neg {
			ns = -ns
		}
		return ns, OK
	}
	ms := Float(m, -decimals)
	if neg {
		ms = -ms
	}
	ns := math.Round(ms * 1e6)
	if math.Abs(ns) > max {
		return MillisPlain(string(b), max)
	}
	return int64(ns), OK
}

// MillisPlain is Millis by strconv.ParseFloat.
func MillisPlain(s string, max float64) (int64, Why) {
	if s == "" {
		return 0, Missing
	}
	if strings.ContainsFunc(s, func(c rune) bool {
		return !(c >= '0' && c <= '9' || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-')
	}) {
		low := strings.ToLower(s)
		if strings.Contains(low, "nan") || strings.Contains(low, "inf") {
			return 0, NonFinite
		}
		return 0, Syntax
	}
	ms, err := strconv.ParseFloat(s, 64)
	if errors.Is(err, strconv.ErrRange) || math.IsInf(ms, 0) {
		return 0, Range
	}
	if err != nil {
		return 0, Syntax
	}
	ns := math.Round(ms * 1e6)
	if math.Abs(ns) > max {
		return 0, Range
	}
	return int64(ns), OK
}

// Int32 reads the field b, a decimal integer in the range of an int32,
// possibly signed. A count of at most nine digits, which cannot overflow,
// is converted here; anything else is left to Int32Plain, its twin.
func Int32(b []byte) (int, Why) {
	i, neg := 0, false
	if len(b) > 0 && (b[0] == '-' || b[0] == '+') {
		i, neg = 1, b[0] == '-'
	}
	n, read := Count(b[i:])
	if read == 0 || i+read != len(b) {
		return Int32Plain(string(b))
	}
	if neg {
		n = -n
	}
	return n, OK
}

// Int32Plain is Int32 by strconv.ParseInt.
func Int32Plain(s string) (int, Why) {
	if s == "" {
		return 0, Missing
	}
	n, err := strconv.ParseInt(s, 10, 32)
	if errors.Is(err, strconv.ErrRange) {
		return 0, Range
	}
	if err != nil {
		return 0, Syntax
	}
	return int(n), OK
}

// FormatMillis writes ns nanoseconds in milliseconds, exactly: as many
// decimals as the nanoseconds need, none when they make whole
// milliseconds.
func FormatMillis(ns int64) string {
	neg := ns < 0
	u := uint64(ns)
	if neg {
		u = -u
	}
	s := strconv.FormatUint(u/1e6, 10)
	if f := u % 1e6; f != 0 {
		s += "." + strings.TrimRight(strconv.FormatUint(f+1e6, 10)[1:], "0")
	}
	if neg {
		s = "-" + s
	}
	return s
}

// FormatCount writes a token count, or nothing for a 0 that says no more
// than that no count was given (a failed request's): an empty field reads
// back as no count, where "0" would read as a count of zero.
func FormatCount(n int, zeroIsCount bool) string {
	if n == 0 && !zeroIsCount {
		return ""
	}
	return strconv.Itoa(n)
}
