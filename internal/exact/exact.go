// Package exact sums int64 values and their squares without rounding, in
// 128 and 192 bits, so that means and standard deviations of samples of
// nanoseconds neither overflow nor depend on the order of the values.
package exact

import (
	"math/big"
	"math/bits"
	"time"
)

// Sum192 is an exact sum of squares of int64 values: each square is below
// 2¹²⁶, so 2⁶⁴ of them fit.
type Sum192 struct{ w0, w1, w2 uint64 }

// AddSquare adds d².
func (s *Sum192) AddSquare(d time.Duration) {
	u := uint64(d)
	if d < 0 {
		u = -u
	}
	hi, lo := bits.Mul64(u, u)
	var c uint64
	s.w0, c = bits.Add64(s.w0, lo, 0)
	s.w1, c = bits.Add64(s.w1, hi, c)
	s.w2 += c
}

// AddWord adds w.
func (s *Sum192) AddWord(w uint64) {
	var c uint64
	s.w0, c = bits.Add64(s.w0, w, 0)
	s.w1, c = bits.Add64(s.w1, 0, c)
	s.w2 += c
}

// AddSum adds another sum to s.
func (s *Sum192) AddSum(o Sum192) {
	var c uint64
	s.w0, c = bits.Add64(s.w0, o.w0, 0)
	s.w1, c = bits.Add64(s.w1, o.w1, c)
	s.w2 += o.w2 + c
}

// Big returns the sum as a big.Int.
func (s Sum192) Big() *big.Int {
	b := new(big.Int).SetUint64(s.w2)
	b.Lsh(b, 64).Add(b, new(big.Int).SetUint64(s.w1))
	return b.Lsh(b, 64).Add(b, new(big.Int).SetUint64(s.w0))
}

// Sum128 is an exact signed 128-bit sum of int64 values, so that means of
// large samples of nanoseconds neither overflow nor round.
type Sum128 struct{ hi, lo uint64 }

// Add adds v.
func (s *Sum128) Add(v int64) {
	var carry uint64
	s.lo, carry = bits.Add64(s.lo, uint64(v), 0)
	s.hi += uint64(v>>63) + carry // v>>63 is the sign extension: 0 or all ones
}

// AddSum adds another sum to s.
func (s *Sum128) AddSum(o Sum128) {
	var carry uint64
	s.lo, carry = bits.Add64(s.lo, o.lo, 0)
	s.hi += o.hi + carry
}

// Big returns the sum as a big.Int.
func (s Sum128) Big() *big.Int {
	b := big.NewInt(int64(s.hi)) // the high word carries the sign
	return b.Lsh(b, 64).Add(b, new(big.Int).SetUint64(s.lo))
}

// DivRound returns s/n rounded to the nearest integer, halves away from zero,
// for n > 0. The quotient must fit in an int64, which it does for a mean.
func (s Sum128) DivRound(n int64) time.Duration {
	neg := int64(s.hi) < 0
	hi, lo := s.hi, s.lo
	if neg { // negate the 128-bit value
		lo, hi = ^lo+1, ^hi
		if lo == 0 {
			hi++
		}
	}
	// The quotient of a mean fits in 64 bits, so only the remainder of the
	// high word matters.
	q0, r := bits.Div64(hi%uint64(n), lo, uint64(n))
	if r >= uint64(n)-r {
		q0++
	}
	if neg {
		return -time.Duration(q0)
	}
	return time.Duration(q0)
}

// DivRound returns d/m rounded to the nearest nanosecond, halves away from
// zero. m must be positive.
func DivRound(d time.Duration, m int64) time.Duration {
	q, rem := int64(d)/m, int64(d)%m
	if rem < 0 {
		rem = -rem
	}
	if rem >= m-rem { // 2·rem ≥ m without overflow
		if d < 0 {
			q--
		} else {
			q++
		}
	}
	return time.Duration(q)
}
