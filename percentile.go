package llmmetrics

import (
	"fmt"
	"math"
	"math/bits"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Method is a percentile estimator. Its zero value is NearestRank.
type Method uint8

const (
	// NearestRank returns the sample value at rank ⌈p·N/100⌉ of the sorted
	// sample (rank 1 at p = 0): Hyndman–Fan type 1, the inverse of the
	// empirical distribution function. The rank is computed in exact integer
	// arithmetic, so p = 7 with N = 100 is rank 7. The result is always a
	// value of the sample: for per-request metrics, a real request.
	NearestRank Method = iota
	// Linear interpolates between the order statistics around the position
	// h = (N − 1)·p/100 (from 0): Hyndman–Fan type 7, the default of numpy,
	// R and Excel PERCENTILE.INC, and what vLLM's benchmark reports. The
	// position and the interpolation are exact; the result is rounded to the
	// nearest nanosecond.
	Linear
)

var methodNames = [...]string{"nearest-rank", "linear"}

// String returns "nearest-rank" or "linear".
func (m Method) String() string {
	if int(m) < len(methodNames) {
		return methodNames[m]
	}
	return fmt.Sprintf("Method(%d)", uint8(m))
}

// ParseMethod parses a method name as written by String.
func ParseMethod(name string) (Method, error) {
	for i, n := range methodNames {
		if n == name {
			return Method(i), nil
		}
	}
	return 0, fmt.Errorf("%w: %q (want nearest-rank or linear)", ErrMethod, name)
}

func (m Method) valid() error {
	if int(m) >= len(methodNames) {
		return fmt.Errorf("%w: %d", ErrMethod, uint8(m))
	}
	return nil
}

// percentScale is the number of Percentile units in one percent: a
// percentile is held exactly to six decimal places.
const (
	percentDecimals = 6
	percentScale    = 1_000_000
	hundredPercent  = 100 * percentScale
)

// A Percentile is a percentile p in [0, 100], held exactly as a decimal with
// up to six places, so that ranks are computed without rounding error.
type Percentile struct{ units int64 } // p × 10⁶

// DefaultPercentiles are the percentiles a Summary reports unless told
// otherwise: p50, p90, p95 and p99.
var DefaultPercentiles = []Percentile{{50 * percentScale}, {90 * percentScale}, {95 * percentScale}, {99 * percentScale}}

// NewPercentile returns the percentile p. The float is read as the shortest
// decimal that represents it (7 is 7, 99.9 is 99.9), so no binary rounding
// reaches the rank. It returns ErrPercentile for p outside [0, 100], NaN, or
// more than six decimal places.
func NewPercentile(p float64) (Percentile, error) {
	if math.IsNaN(p) || math.IsInf(p, 0) {
		return Percentile{}, fmt.Errorf("%w: %v", ErrPercentile, p)
	}
	return ParsePercentile(strconv.FormatFloat(p, 'f', -1, 64))
}

// MustPercentile is like NewPercentile but panics on a bad value. It is meant
// for constants in programs and tests.
func MustPercentile(p float64) Percentile {
	q, err := NewPercentile(p)
	if err != nil {
		panic(err)
	}
	return q
}

// ParsePercentile parses a decimal percentile such as "99" or "99.9", with an
// optional leading "p". It returns ErrPercentile for anything else.
func ParsePercentile(s string) (Percentile, error) {
	bad := func() (Percentile, error) {
		return Percentile{}, fmt.Errorf("%w: %q (want a decimal in [0, 100] with at most %d places)", ErrPercentile, s, percentDecimals)
	}
	t := strings.TrimPrefix(s, "p")
	whole, frac, _ := strings.Cut(t, ".")
	if whole == "" || len(whole) > 3 || len(frac) > percentDecimals || strings.HasSuffix(t, ".") {
		return bad()
	}
	var units int64
	for _, c := range whole + frac + strings.Repeat("0", percentDecimals-len(frac)) {
		if c < '0' || c > '9' {
			return bad()
		}
		units = units*10 + int64(c-'0')
	}
	if units > hundredPercent {
		return bad()
	}
	return Percentile{units}, nil
}

// ParsePercentiles parses a comma-separated list such as "50,90,95,99".
func ParsePercentiles(list string) ([]Percentile, error) {
	var ps []Percentile
	for _, f := range strings.Split(list, ",") {
		p, err := ParsePercentile(strings.TrimSpace(f))
		if err != nil {
			return nil, err
		}
		ps = append(ps, p)
	}
	return ps, nil
}

// Float returns p as a float64 (99.9 for p99.9).
func (p Percentile) Float() float64 { return float64(p.units) / percentScale }

// String returns p in its shortest decimal form, such as "99.9".
func (p Percentile) String() string {
	s := strconv.FormatInt(p.units/percentScale, 10)
	if f := p.units % percentScale; f != 0 {
		s += "." + strings.TrimRight(fmt.Sprintf("%06d", f), "0")
	}
	return s
}

// Key returns the report key of p: "p50", "p99.9".
func (p Percentile) Key() string { return "p" + p.String() }

// position returns where percentile p falls in a sorted sample of n values
// under method m: the index lo (from 0) and, for Linear, the fraction
// num/hundredPercent of the way to index lo+1. n must be positive.
func (m Method) position(p Percentile, n int) (lo int, num uint64) {
	if m == NearestRank {
		// rank k = ⌈units·n / 10⁸⌉, at least 1; index k − 1.
		hi, lo64 := bits.Mul64(uint64(p.units), uint64(n))
		q, r := bits.Div64(hi, lo64, hundredPercent)
		if r != 0 {
			q++
		}
		return max(int(q), 1) - 1, 0
	}
	// h = units·(n − 1) / 10⁸, from 0.
	hi, lo64 := bits.Mul64(uint64(p.units), uint64(n-1))
	q, r := bits.Div64(hi, lo64, hundredPercent)
	return int(q), r
}

// interpolate returns a + num/10⁸·(b − a), rounded to the nearest
// nanosecond, halves up. It needs a ≤ b.
func interpolate(a, b time.Duration, num uint64) time.Duration {
	if num == 0 {
		return a
	}
	hi, lo := bits.Mul64(uint64(b-a), num)
	q, r := bits.Div64(hi, lo, hundredPercent)
	if r >= hundredPercent-r {
		q++
	}
	return a + time.Duration(q)
}

// Percentiles returns the values of xs at each percentile, by method m. The
// caller's slice is not modified. It returns ErrNoSamples for an empty xs.
func Percentiles(xs []time.Duration, m Method, ps ...Percentile) ([]time.Duration, error) {
	if err := m.valid(); err != nil {
		return nil, err
	}
	if len(xs) == 0 {
		return nil, ErrNoSamples
	}
	return percentiles(flat(xs), slices.Min(xs), slices.Max(xs), m, ps), nil
}

// A sample holds the values a distribution is taken over without copying
// them: either flat, the values of each segment, or as gaps, the
// differences between consecutive values of each segment. The pooled chunk
// gaps of a run are a sample of gaps over the records' chunk arrivals, so
// that the hundreds of millions of gaps of a large run are never written
// out.
type sample struct {
	segs [][]time.Duration
	gaps bool
	n    int // number of values
}

func flat(xs []time.Duration) sample { return sample{segs: [][]time.Duration{xs}, n: len(xs)} }

// appendTo appends the sample's values to dst.
func (s sample) appendTo(dst []time.Duration) []time.Duration {
	for _, seg := range s.segs {
		if s.gaps {
			dst = appendGapsOf(dst, seg)
		} else {
			dst = append(dst, seg...)
		}
	}
	return dst
}

// percentiles computes the percentiles of a non-empty sample whose values
// lie in [lo, hi].
func percentiles(s sample, lo, hi time.Duration, m Method, ps []Percentile) []time.Duration {
	ks := make([]int, 0, 2*len(ps))
	for _, p := range ps {
		k, num := m.position(p, s.n)
		ks = append(ks, k)
		if num != 0 {
			ks = append(ks, k+1)
		}
	}
	slices.Sort(ks)
	ks = slices.Compact(ks)
	vals := make([]time.Duration, len(ks))
	selectRanks(s, lo, hi, ks, vals)
	at := func(k int) time.Duration { i, _ := slices.BinarySearch(ks, k); return vals[i] }
	out := make([]time.Duration, len(ps))
	for i, p := range ps {
		k, num := m.position(p, s.n)
		if num == 0 {
			out[i] = at(k)
		} else {
			out[i] = interpolate(at(k), at(k+1), num)
		}
	}
	return out
}

// Order statistics are found by radix selection, which reads the sample
// without reordering or copying it: one pass counts the values into up to
// 2^radixBits buckets by their offset from lo, the cumulative counts tell
// which bucket holds each wanted rank, and a second pass copies out only the
// values of those buckets, which are then selected among in the same way.
// Each level narrows the value range by a factor of 2^radixBits, so there
// are at most ⌈64/radixBits⌉ levels, and small sets are simply sorted.
const (
	radixBits  = 12
	sortCutoff = 256
)

// selectRanks sets out[i] to the value of rank ks[i] (from 0) of the
// sample, as if it were sorted. ks must be sorted, distinct and below s.n,
// and the sample's values must lie in [lo, hi].
func selectRanks(s sample, lo, hi time.Duration, ks []int, out []time.Duration) {
	if lo == hi {
		for i := range out {
			out[i] = lo
		}
		return
	}
	if s.n <= sortCutoff {
		v := s.appendTo(make([]time.Duration, 0, s.n))
		slices.Sort(v)
		for i, k := range ks {
			out[i] = v[k]
		}
		return
	}
	span := uint64(hi - lo) // hi > lo, so this cannot wrap
	shift := uint(max(0, bits.Len64(span)-radixBits))
	counts := make([]int, span>>shift+1)
	for _, seg := range s.segs {
		if s.gaps {
			for i := 1; i < len(seg); i++ {
				counts[uint64(seg[i]-seg[i-1]-lo)>>shift]++
			}
		} else {
			for _, x := range seg {
				counts[uint64(x-lo)>>shift]++
			}
		}
	}
	// Find the bucket of each rank, and how many values lie in lower
	// buckets.
	bucketOf := make([]int, len(ks))
	below := make([]int, len(ks))
	b, cum := 0, 0
	for i, k := range ks {
		for cum+counts[b] <= k {
			cum += counts[b]
			b++
		}
		bucketOf[i], below[i] = b, cum
	}
	// Copy out the values of the wanted buckets (bucketOf is sorted) in one
	// pass; slot[b] is 1 + the index of bucket b's set, or 0.
	wanted := slices.Compact(slices.Clone(bucketOf))
	subs := make([][]time.Duration, len(wanted))
	slot := make([]int32, len(counts))
	for j, b := range wanted {
		subs[j] = make([]time.Duration, 0, counts[b])
		slot[b] = int32(j + 1)
	}
	for _, seg := range s.segs {
		if s.gaps {
			for i := 1; i < len(seg); i++ {
				x := seg[i] - seg[i-1]
				if j := slot[uint64(x-lo)>>shift]; j != 0 {
					subs[j-1] = append(subs[j-1], x)
				}
			}
		} else {
			for _, x := range seg {
				if j := slot[uint64(x-lo)>>shift]; j != 0 {
					subs[j-1] = append(subs[j-1], x)
				}
			}
		}
	}
	// Select within each bucket; the ranks of one bucket go together.
	for i := 0; i < len(ks); {
		j := i
		for j < len(ks) && bucketOf[j] == bucketOf[i] {
			j++
		}
		b := bucketOf[i]
		local := make([]int, j-i)
		for t := range local {
			local[t] = ks[i+t] - below[i]
		}
		blo := lo + time.Duration(uint64(b)<<shift)
		bhi := blo + time.Duration(uint64(1)<<shift-1)
		if bhi < blo || bhi > hi { // the last bucket, or an overflow at the top of the range
			bhi = hi
		}
		selectRanks(flat(subs[slot[b]-1]), blo, bhi, local, out[i:j])
		i = j
	}
}
