// Package jsontok reads the tokens of JSON held in memory, at an index into
// its bytes, without building values: white space, literals, strings (their
// extent, and whether they need decoding), and whole numbers. Its callers
// keep their own index and say their own errors in their own words: the
// root's JSONL reader (one line at a time, naming the key and the column),
// formats' scanner of other tools' result files (naming the byte offset),
// and observe's reader of streamed events (which reads a malformed event
// as empty).
//
// String reads eight bytes at a time, and Space decides most calls at its
// first comparison; each has a plain twin, a byte at a time (plain.go),
// which the fuzz tests hold it to on every input.
package jsontok

import (
	"encoding/binary"
	"errors"
	"math"
	"math/bits"

	"github.com/llmmetrics/llmmetrics/internal/eightdigits"
)

// The ways a string can fail to end.
var (
	ErrEnd     = errors.New("the input ends inside a string")
	ErrControl = errors.New("control character in a string")
)

// Space returns the index of the first byte at or after i that is not JSON
// white space, or len(b). A byte above ' ' ends it at the first comparison:
// most calls find no white space at all.
func Space(b []byte, i int) int {
	for i < len(b) && b[i] <= ' ' && (b[i] == ' ' || b[i] == '\n' || b[i] == '\t' || b[i] == '\r') {
		i++
	}
	return i
}

// Literal reports whether word comes at b[i:].
func Literal(b []byte, i int, word string) bool {
	return len(b)-i >= len(word) && string(b[i:i+len(word)]) == word
}

// String reads the JSON string whose opening quote is b[i] and returns the
// index just past its closing quote, whether it holds escapes and whether
// it holds bytes beyond ASCII. A string with neither is its bytes between
// the quotes; any other is for encoding/json to decode (it checks escapes
// and UTF-8). On an error, end is where reading stopped: at the control
// character (ErrControl), or at or past the end of b (ErrEnd).
//
// It reads eight bytes at a time up to the next byte it must look at (see
// stops); stringPlain, a byte at a time, is its twin and its specification.
func String(b []byte, i int) (end int, escaped, nonASCII bool, err error) {
	for i++; i < len(b); {
		if i+8 <= len(b) {
			m := stops(binary.LittleEndian.Uint64(b[i:i+8]), nonASCII)
			if m == 0 {
				i += 8
				continue
			}
			i += bits.TrailingZeros64(m) / 8
		}
		c := b[i]
		switch {
		case c == '\\':
			escaped = true
			i += 2
			continue
		case c == '"':
			return i + 1, escaped, nonASCII, nil
		case c < 0x20:
			return i, escaped, nonASCII, ErrControl
		case c >= 0x80:
			nonASCII = true
		}
		i++
	}
	return i, escaped, nonASCII, ErrEnd
}

// Masks of the eight bytes of a uint64.
const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// stops returns a mask whose lowest set bit is the high bit of the first
// of the eight bytes of v (the first in the lowest byte) that String must
// look at — a quote, a backslash, a control character, or, until one has
// been seen (nonASCII), a byte beyond ASCII — and 0 when there is none.
// Each test is the classic "has a byte less than n": subtracting n from
// every byte sets the high bit of each byte below n, and of bytes above
// one only through its borrow, so the lowest set bit is always exact.
func stops(v uint64, nonASCII bool) uint64 {
	q := v ^ ('"' * ones)   // quotes become zeros
	bs := v ^ ('\\' * ones) // backslashes become zeros
	m := (q-ones)&^q | (bs-ones)&^bs
	if nonASCII {
		return (m | (v-0x20*ones)&^v) & highs
	}
	return (m | (v - 0x20*ones) | v) & highs // x&^v | v is x | v
}

// A WholeError says why Whole did not read a whole number.
type WholeError uint8

const (
	WholeOK     WholeError = iota
	NoDigits               // no digit where a number was wanted
	LeadingZero            // more than one digit, the first a zero
	Fraction               // a point or an exponent after the digits
	OutOfRange             // beyond an int64
)

// Whole reads the whole number at b[i:]: an optional '-' and digits, the
// first not a zero unless it is the only one. It returns the number, the
// index just past its digits, and WholeOK, or why it is not one.
func Whole(b []byte, i int) (v int64, end int, why WholeError) {
	neg := i < len(b) && b[i] == '-'
	if neg {
		i++
	}
	var u uint64
	digits, over := 0, false
	for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
		// 19 digits cannot overflow a uint64; with no leading zero, 20 or
		// more are beyond any int64, so they need no arithmetic.
		if digits < 19 {
			u = u*10 + uint64(b[i]-'0')
		} else {
			over = true
		}
		digits++
	}
	switch {
	case digits == 0:
		return 0, i, NoDigits
	case digits > 1 && b[i-digits] == '0':
		return 0, i, LeadingZero
	case i < len(b) && (b[i] == '.' || b[i] == 'e' || b[i] == 'E'):
		return 0, i, Fraction
	case over || (!neg && u > math.MaxInt64) || (neg && u > 1<<63):
		return 0, i, OutOfRange
	case neg:
		return -int64(u), i, WholeOK
	}
	return int64(u), i, WholeOK
}

// ListUint reads the common element of an array of whole numbers: digits
// without a leading zero, at most 18 of them, followed at once by ',' or
// ']', read eight at a time where they can be, and at most max. It returns
// the number and the index of the ',' or ']', or false, having read
// nothing, for anything else (which Whole reads).
func ListUint(b []byte, i int, max uint64) (uint64, int, bool) {
	j := i
	var u uint64
	for j+8 <= len(b) && j-i <= 10 { // eight digits at a time, to at most 18
		v := binary.LittleEndian.Uint64(b[j:])
		if !eightdigits.Valid(v) {
			break
		}
		u = u*1e8 + eightdigits.Parse(v)
		j += 8
	}
	for ; j < len(b) && j-i < 18; j++ {
		c := b[j] - '0'
		if c > 9 {
			break
		}
		u = u*10 + uint64(c)
	}
	if j > i && j < len(b) && (b[j] == ',' || b[j] == ']') && (b[i] != '0' || j == i+1) && u <= max {
		return u, j, true
	}
	return 0, i, false
}
