package decimal

import (
	"math"
	"math/bits"
)

// This file makes Parse's fast path correctly rounded, so that every
// number parses to the float64 strconv.ParseFloat gives.
//
// The fast path reads up to 19 digits into an integer w and a power of ten
// e with |e| ≤ 22, so the value is v = w·10^e. When w ≤ 2^53 both w and 10^|e|
// are exact float64s, and one multiplication or division rounds once:
// the result is correctly rounded. A larger w is rounded when it is
// converted, so the computed c can be one unit in the last place away from
// the correct result. Float then decides exactly, in integer
// arithmetic, on which side of the midpoints between c and its neighbours
// v lies, and moves c to the neighbour when v is nearer it (ties to even,
// as IEEE 754 rounding does).

// pow5 holds 5^k for k ≤ 22; 5^22 < 2^52.
var pow5 = func() (p [23]uint64) {
	p[0] = 1
	for i := 1; i < len(p); i++ {
		p[i] = p[i-1] * 5
	}
	return p
}()

// Float returns w·10^e correctly rounded, for |e| ≤ 22: the float64
// strconv.ParseFloat gives for the decimal.
func Float(w uint64, e int) float64 {
	c := float64(w)
	if e < 0 {
		c /= pow10[-e]
	} else {
		c *= pow10[e]
	}
	if w <= 1<<53 {
		return c // one rounding of exact operands: correctly rounded
	}
	// Here c ≥ 2^53·10^-22 is positive and normal, and no neighbour of it
	// is infinite (w·10^22 < 2^138), so the neighbours are the next bit
	// patterns.
	if step, ok := roundingStep(w, e, c); ok {
		return math.Float64frombits(math.Float64bits(c) + uint64(step))
	}
	for range 3 { // one step suffices; the bound is a guard
		b := math.Float64bits(c)
		m := b&(1<<52-1) | 1<<52 // c = m·2^q, 2^52 ≤ m < 2^53
		q := int(b>>52) - 1075
		if up := compareToHalf(w, e, 2*m+1, q-1); up > 0 || up == 0 && m&1 == 1 {
			c = math.Float64frombits(b + 1)
			continue
		}
		lowNum, lowExp := 2*m-1, q-1
		if m == 1<<52 { // the neighbour below has the smaller exponent
			lowNum, lowExp = 4*m-1, q-2
		}
		if down := compareToHalf(w, e, lowNum, lowExp); down < 0 || down == 0 && m&1 == 1 {
			c = math.Float64frombits(b - 1)
			continue
		}
		break
	}
	return c
}

// roundingStep tells how many places c must move to be the correctly
// rounded value of v = w·10^e: 0, +1 (up) or −1 (down), with ok false when
// that cannot be decided in floating point. It measures c's error with a few
// operations: the residual of a rounded quotient or product is exactly
// representable and a fused multiply-add computes it exactly, and the
// rounding of w itself is the integer w − float64(w). The error is then
// known to a relative 1e-15 or better; what lies within a relative 1e-9 of
// a midpoint between two float64s is left to the exact comparison, as is
// a c that is a power of two (its neighbours are not equally far).
func roundingStep(w uint64, e int, c float64) (step int64, ok bool) {
	b := math.Float64bits(c)
	if b&(1<<52-1) == 0 {
		return 0, false
	}
	fw := float64(w)
	delta := float64(int64(w - uint64(fw)))          // w − fw, exact: |w − fw| ≤ 2^10
	half := math.Float64frombits((b>>52-52)<<52) / 2 // half a unit in the last place of c
	var over float64                                 // (c − v), scaled by 10^-e when e < 0
	if e < 0 {
		p := pow10[-e]
		over = math.FMA(c, p, -fw) - delta
		half *= p
	} else {
		p := pow10[e]
		over = -(math.FMA(fw, p, -c) + delta*p)
	}
	// Written without branches on the outcome, which is as good as random
	// (Python's shortest form of a float64 is one place off the rounded
	// quotient about half the time), so that it costs no misprediction.
	const margin = 1e-9
	a := math.Abs(over)
	if a > half {
		step = 1
	}
	up := int64(math.Float64bits(over) >> 63) // 1 when c is below v
	step *= 2*up - 1
	ok = math.Abs(a-half) > half*margin && a < 3*half*(1-margin)
	return step, ok
}

// compareToHalf compares v = w·10^e with h = num·2^exp exactly, returning
// -1, 0 or +1. Writing 10^e = 5^e·2^e moves every factor of two into one
// shift, and what is left fits in 128 bits: w·5^22 < 2^116.
func compareToHalf(w uint64, e int, num uint64, exp int) int {
	var a, b u128 // compare a·2^sa with b·2^sb
	var shift int // the power of two on b's side once a's is taken out
	if e >= 0 {
		a = mul64(w, pow5[e]) // v = w·5^e · 2^e
		b = u128{lo: num}
		shift = exp - e
	} else {
		a = u128{lo: w}          // v = w / (5^k · 2^k), k = −e
		b = mul64(num, pow5[-e]) // so compare w with num·5^k · 2^(exp+k)
		shift = exp - e
	}
	if shift >= 0 {
		var ok bool
		if b, ok = b.shl(shift); !ok {
			return -1 // b overflows 128 bits, so it is the larger
		}
	} else {
		var ok bool
		if a, ok = a.shl(-shift); !ok {
			return 1
		}
	}
	return a.cmp(b)
}

// u128 is an unsigned 128-bit integer.
type u128 struct{ hi, lo uint64 }

func mul64(x, y uint64) u128 {
	hi, lo := bits.Mul64(x, y)
	return u128{hi, lo}
}

// shl shifts x left by s bits, reporting false if bits would be lost.
func (x u128) shl(s int) (u128, bool) {
	switch {
	case s == 0:
		return x, true
	case s >= 128:
		return x, x == u128{}
	case s >= 64:
		if x.hi != 0 || bits.LeadingZeros64(x.lo) < s-64 {
			return x, false
		}
		return u128{hi: x.lo << (s - 64)}, true
	}
	if bits.LeadingZeros64(x.hi) < s {
		return x, false
	}
	return u128{hi: x.hi<<s | x.lo>>(64-s), lo: x.lo << s}, true
}

func (x u128) cmp(y u128) int {
	switch {
	case x.hi != y.hi:
		if x.hi < y.hi {
			return -1
		}
		return 1
	case x.lo < y.lo:
		return -1
	case x.lo > y.lo:
		return 1
	}
	return 0
}
