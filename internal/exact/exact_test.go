package exact

import (
	"math"
	"math/big"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// The sums equal math/big's, whatever the values (the extremes of int64
// included) and however the sums are split and joined; DivRound rounds
// halves away from zero, as the quotient of big.Int.QuoRem with the
// remainder doubled and compared says.
func TestSums(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		vals := rapid.SliceOf(rapid.OneOf(rapid.Int64(), rapid.SampledFrom([]int64{math.MinInt64, math.MaxInt64, -1, 0, 1}))).Draw(t, "vals")
		cut := rapid.IntRange(0, len(vals)).Draw(t, "cut")
		var s, s2 Sum128
		var q, q2 Sum192
		want, wantSq := new(big.Int), new(big.Int)
		for i, v := range vals {
			if v == math.MinInt64 { // a square must fit: |v| < 2⁶³ for AddSquare
				v++
			}
			if i < cut {
				s.Add(v)
				q.AddSquare(time.Duration(v))
			} else {
				s2.Add(v)
				q2.AddSquare(time.Duration(v))
			}
			b := big.NewInt(v)
			want.Add(want, b)
			wantSq.Add(wantSq, new(big.Int).Mul(b, b))
		}
		s.AddSum(s2)
		q.AddSum(q2)
		if s.Big().Cmp(want) != 0 || q.Big().Cmp(wantSq) != 0 {
			t.Fatalf("sums %v, %v; want %v, %v", s.Big(), q.Big(), want, wantSq)
		}
		n := int64(max(1, len(vals)))
		quo, rem := new(big.Int).QuoRem(want, big.NewInt(n), new(big.Int))
		if r2 := new(big.Int).Abs(new(big.Int).Lsh(rem, 1)); r2.Cmp(big.NewInt(n)) >= 0 {
			quo.Add(quo, big.NewInt(int64(want.Sign())))
		}
		if quo.IsInt64() {
			if got := s.DivRound(n); int64(got) != quo.Int64() {
				t.Fatalf("DivRound(%d) of %v = %d, want %v", n, want, got, quo)
			}
		}
	})
}

// AddWord adds a word with its carry: 2⁶⁴−1 twice is 2⁶⁵−2.
func TestAddWord(t *testing.T) {
	var s Sum192
	s.AddWord(math.MaxUint64)
	s.AddWord(math.MaxUint64)
	want := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 65), big.NewInt(2))
	if s.Big().Cmp(want) != 0 {
		t.Fatalf("%v, want %v", s.Big(), want)
	}
}
