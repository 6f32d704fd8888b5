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
	l := newLevel(s, lo, hi, radixBits)
	if s.N >= guessMin && l.guess(ks, out) {
		return
	}
	if l.partCounts == nil {
		l.countAll()
	}
	l.copyWanted(ks, out)
}

// A level is one level of a radix selection: the sample, the range of its
// values, the buckets they are counted in (of 2^shift values each), and
// the parts the passes over it are shared in, with each part's counts.
type level[T ~int64] struct {
	s          Sample[T]
	lo, hi     T
	shift      uint
	bits       int
	parts      []Sample[T]
	counts     []int   // the values in each bucket
	partCounts [][]int // the values of each part in each bucket
}

// newLevel returns the level of a sample whose values lie in [lo, hi],
// lo < hi, in buckets of the given bits.
func newLevel[T ~int64](s Sample[T], lo, hi T, radixBits int) *level[T] {
	span := uint64(hi - lo) // hi > lo, so this cannot wrap
	shift := uint(max(0, bits.Len64(span)-radixBits))
	return &level[T]{s: s, lo: lo, hi: hi, shift: shift, bits: radixBits,
		parts: s.split(parallel(s.N)), counts: make([]int, span>>shift+1)}
}

// countAll counts the values of every part into their buckets.
func (l *level[T]) countAll() {
	l.partCounts = make([][]int, len(l.parts))
	if len(l.parts) == 1 {
		l.s.count(l.lo, l.shift, l.counts)
		l.partCounts[0] = l.counts
		return
	}
	inParallel(l.parts, func(p int, part Sample[T]) {
		l.partCounts[p] = make([]int, len(l.counts))
		part.count(l.lo, l.shift, l.partCounts[p])
	})
	l.sumCounts()
}

// sumCounts sets the counts to the sum of the parts'.
func (l *level[T]) sumCounts() {
	for _, c := range l.partCounts {
		for i, n := range c {
			l.counts[i] += n
		}
	}
}

// bucketsOf returns the bucket of each rank of ks (sorted), and how many
// values lie in lower buckets.
func (l *level[T]) bucketsOf(ks []int) (bucketOf, below []int) {
	bucketOf, below = make([]int, len(ks)), make([]int, len(ks))
	b, cum := 0, 0
	for i, k := range ks {
		for cum+l.counts[b] <= k {
			cum += l.counts[b]
			b++
		}
		bucketOf[i], below[i] = b, cum
	}
	return bucketOf, below
}

// copyWanted copies out the values of the buckets that hold the ranks of
// ks in one pass, and selects among them.
func (l *level[T]) copyWanted(ks []int, out []T) {
	bucketOf, below := l.bucketsOf(ks)
	// slot[b] is 1 + the index of bucket b's set, or 0 (bucketOf is
	// sorted).
	wanted := slices.Compact(slices.Clone(bucketOf))
	subs := make([][]T, len(wanted))
	slot := make([]int32, len(l.counts))
	for j, b := range wanted {
		subs[j] = make([]T, l.counts[b])
		slot[b] = int32(j + 1)
	}
	// Each part copies its values into its own stretch of each set: after
	// those of the parts before it.
	partSubs := make([][][]T, len(l.parts))
	for p := range l.parts {
		partSubs[p] = make([][]T, len(wanted))
		for j, b := range wanted {
			at := 0
			for _, c := range l.partCounts[:p] {
				at += c[b]
			}
			partSubs[p][j] = subs[j][at : at : at+l.partCounts[p][b]]
		}
	}
	inParallel(l.parts, func(p int, part Sample[T]) { part.copyOut(l.lo, l.shift, slot, partSubs[p]) })
	l.selectIn(ks, out, bucketOf, below, func(b int) Sample[T] { return Flat(subs[slot[b]-1]) })
}

// selectIn selects each rank of ks among the values of its bucket, given
// by set; the ranks of one bucket go together.
func (l *level[T]) selectIn(ks []int, out []T, bucketOf, below []int, set func(b int) Sample[T]) {
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
		blo := l.lo + T(uint64(b)<<l.shift)
		bhi := blo + T(uint64(1)<<l.shift-1)
		if bhi < blo || bhi > l.hi { // the last bucket, or an overflow at the top of the range
			bhi = l.hi
		}
		selectBits(set(b), blo, bhi, local, out[i:j], l.bits)
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
