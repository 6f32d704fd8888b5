// Package order finds order statistics of large samples without sorting,
// copying or reordering them.
package order

import (
	"math"
	"math/bits"
	"runtime"
	"slices"
	"sync"
	"unsafe"

	"github.com/llmmetrics/llmmetrics/internal/cpucache"
)

// A Sample holds values without copying them: either flat, the values of
// each segment, or as gaps, the differences between consecutive values of
// each segment.
type Sample[T ~int64] struct {
	Segs [][]T
	// Seg, when not nil, gives the segments instead of Segs: segment i
	// of NSegs is Seg(i) (nil for none). It holds a sample of segments
	// kept elsewhere, such as records' chunk arrivals, without a list of
	// them.
	Seg   func(i int) []T
	NSegs int
	from  int // the first of Seg's segments that a part of a sample holds
	Gaps  bool
	// Float says the values are the bits of float64s (see Floats), to be
	// ordered by Key. It cannot be combined with Gaps.
	Float bool
	N     int // number of values
}

// Floats returns the sample of float64 values held in segs, which are read
// in place as their bits: they are ordered by Key, and the order statistics
// Select returns are keys (convert them with Float).
func Floats(segs [][]float64) Sample[int64] {
	s := Sample[int64]{Segs: make([][]int64, len(segs)), Float: true}
	for i, seg := range segs {
		if len(seg) > 0 {
			s.Segs[i] = unsafe.Slice((*int64)(unsafe.Pointer(&seg[0])), len(seg))
		}
		s.N += len(seg)
	}
	return s
}

// segs returns the number of segments.
func (s Sample[T]) segs() int {
	if s.Seg != nil {
		return s.NSegs
	}
	return len(s.Segs)
}

// seg returns segment i.
func (s Sample[T]) seg(i int) []T {
	if s.Seg != nil {
		return s.Seg(s.from + i)
	}
	return s.Segs[i]
}

// Each calls fn with each segment in turn.
func (s Sample[T]) Each(fn func(seg []T)) {
	for i := range s.segs() {
		fn(s.seg(i))
	}
}

// Flat returns the sample of the values of xs.
func Flat[T ~int64](xs []T) Sample[T] { return Sample[T]{Segs: [][]T{xs}, N: len(xs)} }

// AppendTo appends the sample's values to dst.
func (s Sample[T]) AppendTo(dst []T) []T {
	for k := range s.segs() {
		seg := s.seg(k)
		switch {
		case s.Gaps:
			for i := 1; i < len(seg); i++ {
				dst = append(dst, seg[i]-seg[i-1])
			}
		case s.Float:
			for _, x := range seg {
				dst = append(dst, T(floatKey(int64(x))))
			}
		default:
			dst = append(dst, seg...)
		}
	}
	return dst
}

// Order statistics are found by radix selection, which reads the sample
// without reordering or copying it: one pass counts the values into up to
// 2^radixBits buckets by their offset from lo, the cumulative counts tell
// which bucket holds each wanted rank, and a second pass copies out only the
// values of those buckets, which are then selected among in the same way.
// Each level narrows the value range by a factor of 2^bits, so there are
// at most ⌈64/bits⌉ levels, and small sets are simply sorted.
//
// The counting pass adds one to a count chosen by each value, so its
// counts (8 bytes each) are read and written at random while the values
// stream by: they must stay in the level-1 data cache, beside the stream,
// of every thread that shares it (each part of the sample counts into
// counts of its own). bits is the most, up to maxBits, whose counts fill
// no more than two thirds of each sharer's part of the cache (see
// internal/cpucache): 12 for a 48 KiB cache of one thread (AMD EPYC,
// 32 KiB of counts), 11 for 32 KiB of one thread or 48 KiB of two, 10 for
// 32 KiB of two hyperthreads (a small Intel Xeon machine), and maxBits
// where the system does not say. A narrower level only moves a little work
// to the next level, which reads the few values of the wanted buckets.
const (
	maxBits    = 12
	minBits    = 8
	sortCutoff = 256
)

// radixBits is the bits of a level on this machine; see bitsFor.
var radixBits = sync.OnceValue(func() int { return bitsFor(cpucache.L1D()) })

// bitsFor returns the bits of a level for a level-1 data cache of the
// given bytes shared by sharers threads; maxBits when either is unknown.
func bitsFor(cacheBytes, sharers int) int {
	if cacheBytes <= 0 || sharers <= 0 {
		return maxBits
	}
	room := cacheBytes / sharers * 2 / 3
	b := maxBits
	for b > minBits && 8<<b > room {
		b--
	}
	return b
}

// Select sets out[i] to the value of rank ks[i] (from 0) of the sample, as
// if it were sorted. ks must be sorted, distinct and below s.N, and the
// sample's values must lie in [lo, hi] (for a Float sample: their keys).
func Select[T ~int64](s Sample[T], lo, hi T, ks []int, out []T) {
	selectBits(s, lo, hi, ks, out, radixBits())
}

// selectBits is Select with levels of the given bits.
func selectBits[T ~int64](s Sample[T], lo, hi T, ks []int, out []T, radixBits int) {
	if lo == hi {
		for i := range out {
			out[i] = lo
		}
		return
	}
	if s.N <= sortCutoff {
		v := s.AppendTo(make([]T, 0, s.N))
		slices.Sort(v)
		for i, k := range ks {
			out[i] = v[k]
		}
		return
	}
	span := uint64(hi - lo) // hi > lo, so this cannot wrap
	shift := uint(max(0, bits.Len64(span)-radixBits))
	counts := make([]int, span>>shift+1)
	parts := s.split(parallel(s.N))
	partCounts := make([][]int, len(parts))
	if len(parts) == 1 {
		s.count(lo, shift, counts)
		partCounts[0] = counts
	} else {
		inParallel(parts, func(p int, part Sample[T]) {
			partCounts[p] = make([]int, len(counts))
			part.count(lo, shift, partCounts[p])
		})
		for _, c := range partCounts {
			for i, n := range c {
				counts[i] += n
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
	subs := make([][]T, len(wanted))
	slot := make([]int32, len(counts))
	for j, b := range wanted {
		subs[j] = make([]T, counts[b])
		slot[b] = int32(j + 1)
	}
	// Each part copies its values into its own stretch of each set: after
	// those of the parts before it.
	partSubs := make([][][]T, len(parts))
	for p := range parts {
		partSubs[p] = make([][]T, len(wanted))
		for j, b := range wanted {
			at := 0
			for _, c := range partCounts[:p] {
				at += c[b]
			}
			partSubs[p][j] = subs[j][at : at : at+partCounts[p][b]]
		}
	}
	inParallel(parts, func(p int, part Sample[T]) { part.copyOut(lo, shift, slot, partSubs[p]) })
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
		blo := lo + T(uint64(b)<<shift)
		bhi := blo + T(uint64(1)<<shift-1)
		if bhi < blo || bhi > hi { // the last bucket, or an overflow at the top of the range
			bhi = hi
		}
		selectBits(Flat(subs[slot[b]-1]), blo, bhi, local, out[i:j], radixBits)
		i = j
	}
}

// Key maps a float64 to an int64 that sorts in the same order (−0 just below
// +0), so that float samples can be selected with Select. NaN has no place
// in the order; callers must refuse it first.
func Key(f float64) int64 { return floatKey(int64(math.Float64bits(f))) }

// floatKey maps the bits of a float64 to its key; it is its own inverse.
func floatKey(bits int64) int64 {
	if bits < 0 {
		bits ^= math.MaxInt64
	}
	return bits
}

// Float inverts Key.
func Float(k int64) float64 { return math.Float64frombits(uint64(floatKey(k))) }

// count adds the sample's values to counts, by their offset from lo
// shifted right by shift.
func (s Sample[T]) count(lo T, shift uint, counts []int) {
	for k := range s.segs() {
		seg := s.seg(k)
		switch {
		case s.Gaps:
			for i := 1; i < len(seg); i++ {
				counts[uint64(seg[i]-seg[i-1]-lo)>>shift]++
			}
		case s.Float:
			for _, x := range seg {
				counts[uint64(T(floatKey(int64(x)))-lo)>>shift]++
			}
		default:
			for _, x := range seg {
				counts[uint64(x-lo)>>shift]++
			}
		}
	}
}

// copyOut appends each value whose bucket has a slot to the set of that
// slot, subs[slot−1].
func (s Sample[T]) copyOut(lo T, shift uint, slot []int32, subs [][]T) {
	for k := range s.segs() {
		seg := s.seg(k)
		switch {
		case s.Gaps:
			for i := 1; i < len(seg); i++ {
				x := seg[i] - seg[i-1]
				if j := slot[uint64(x-lo)>>shift]; j != 0 {
					subs[j-1] = append(subs[j-1], x)
				}
			}
		case s.Float:
			for _, x := range seg {
				k := T(floatKey(int64(x)))
				if j := slot[uint64(k-lo)>>shift]; j != 0 {
					subs[j-1] = append(subs[j-1], k)
				}
			}
		default:
			for _, x := range seg {
				if j := slot[uint64(x-lo)>>shift]; j != 0 {
					subs[j-1] = append(subs[j-1], x)
				}
			}
		}
	}
}

// parallelMin is the size of a sample from which its passes are shared
// among the cores.
const parallelMin = 1 << 16

// parallel returns how many parts a sample of n values is read in.
func parallel(n int) int {
	if n < parallelMin {
		return 1
	}
	return max(1, min(runtime.GOMAXPROCS(0), n/parallelMin))
}

// inParallel calls fn for each part, part 0 on the calling goroutine and
// the others each on a goroutine of its own, and waits for them all.
func inParallel[T ~int64](parts []Sample[T], fn func(p int, part Sample[T])) {
	var wg sync.WaitGroup
	for p := 1; p < len(parts); p++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			fn(p, parts[p])
		}()
	}
	fn(0, parts[0])
	wg.Wait()
}

// split cuts the sample into at most k parts that together hold each of
// its values once, each with about N/k of them. A segment may be cut: a
// segment of gaps is then cut with one value in both halves, whose gap
// belongs to the second.
func (s Sample[T]) split(k int) []Sample[T] {
	if k <= 1 {
		return []Sample[T]{s}
	}
	values := func(seg []T) int {
		if s.Gaps {
			return max(0, len(seg)-1)
		}
		return len(seg)
	}
	parts := make([]Sample[T], 0, k)
	want := (s.N + k - 1) / k
	if n := s.segs(); n >= 64*k {
		// Many segments: the parts are runs of whole segments, which need
		// no copy of the list.
		start, vals := 0, 0
		for i := range n {
			vals += values(s.seg(i))
			if vals >= want || i == n-1 {
				part := s
				part.N = vals
				if s.Seg != nil {
					part.from, part.NSegs = s.from+start, i+1-start
				} else {
					part.Segs = s.Segs[start : i+1]
				}
				parts = append(parts, part)
				start, vals = i+1, 0
			}
		}
		return parts
	}
	cur := Sample[T]{Gaps: s.Gaps, Float: s.Float}
	for i := range s.segs() {
		seg := s.seg(i)
		for values(seg) > 0 {
			take := min(values(seg), want-cur.N)
			if take == values(seg) {
				cur.Segs = append(cur.Segs, seg)
				cur.N += take
				seg = nil
			} else {
				end := take
				if s.Gaps {
					end++
				}
				cur.Segs = append(cur.Segs, seg[:end])
				cur.N += take
				seg = seg[take:]
			}
			if cur.N == want {
				parts = append(parts, cur)
				cur = Sample[T]{Gaps: s.Gaps, Float: s.Float}
			}
		}
	}
	if cur.N > 0 {
		parts = append(parts, cur)
	}
	return parts
}

// Index returns the position of the first value v in a sample of values
// (not Gaps), or −1.
func (s Sample[T]) Index(v T) int {
	at := 0
	for i := range s.segs() {
		seg := s.seg(i)
		if j := slices.Index(seg, v); j >= 0 {
			return at + j
		}
		at += len(seg)
	}
	return -1
}
