package decimal

import (
	"encoding/binary"
	"errors"
	"strconv"

	"github.com/llmmetrics/llmmetrics/internal/eightdigits"
)

// Parse reads the JSON number at the start of b and returns it, the
// bytes read, and whether there was one: the float64 strconv.ParseFloat
// returns for the same text (one beyond the float64 range is ±Inf, as
// there). With ok false, n is 0 when b does not start with a number, and
// otherwise the length of a number that strconv could not read.
//
// Numbers are parsed by a fast path that covers what benchmark tools write
// (at most 19 digits, and a decimal exponent within ±22 once the digits are
// taken as an integer): the digits, eight at a time where they can be, are
// gathered into an integer and scaled by an exact power of ten, and the
// result is made correctly rounded by Float. Anything else goes to
// strconv.ParseFloat.
func Parse(b []byte) (f float64, n int, ok bool) {
	i := 0
	neg := false
	if i < len(b) && b[i] == '-' {
		neg = true
		i++
	}
	var mant uint64
	nd, exp10 := 0, 0 // digits gathered, and the power of ten they are scaled by
	intStart := i
	for ; i < len(b) && isDigit(b[i]); i++ {
		mant = mant*10 + uint64(b[i]-'0')
		nd++
	}
	if i == intStart {
		return 0, 0, false
	}
	if i < len(b) && b[i] == '.' {
		i++
		fracStart := i
		for nd+8 <= 19 && i+8 <= len(b) {
			v := binary.LittleEndian.Uint64(b[i:])
			if !eightdigits.Valid(v) {
				break
			}
			mant = mant*1e8 + eightdigits.Parse(v)
			nd += 8
			exp10 -= 8
			i += 8
		}
		for ; i < len(b) && isDigit(b[i]); i++ {
			mant = mant*10 + uint64(b[i]-'0')
			nd++
			exp10--
		}
		if i == fracStart {
			return 0, 0, false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		var e int
		if i, e, ok = exponent(b, i+1); !ok {
			return 0, 0, false
		}
		exp10 += e
	}
	if nd > 19 || exp10 < -22 || exp10 > 22 {
		f, err := strconv.ParseFloat(string(b[:i]), 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			return 0, i, false
		}
		return f, i, true
	}
	f = Float(mant, exp10)
	if neg {
		f = -f
	}
	return f, i, true
}

// exponent reads the exponent after an 'e' or 'E', from b[i]: an
// optional sign and at least one digit. It returns where it ends and its
// value, which stops growing once past 10000 so that it never overflows
// (an exponent past 22 takes the slow path anyway).
func exponent(b []byte, i int) (end, e int, ok bool) {
	neg := false
	if i < len(b) && (b[i] == '+' || b[i] == '-') {
		neg = b[i] == '-'
		i++
	}
	n := 0
	for ; i < len(b) && isDigit(b[i]); i++ {
		n++
		if e < 10000 {
			e = e*10 + int(b[i]-'0')
		}
	}
	if neg {
		e = -e
	}
	return i, e, n > 0
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// pow10 holds the powers of ten that a float64 holds exactly.
var pow10 = func() (p [23]float64) {
	p[0] = 1
	for i := 1; i < len(p); i++ {
		p[i] = p[i-1] * 10
	}
	return p
}()
