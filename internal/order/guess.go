package order

import (
	"math"
	"slices"
)

// On a large sample the counting pass and the copying pass each read every
// value, and on one core each takes about as long as reading the values
// from memory: 127 M gaps took 75 ms to count and 120 ms to copy out,
// where one pass doing both took 135 ms. So a large sample's wanted
// buckets are guessed before it is read, from a systematic sample of its
// values (every step-th, about sampleSize of them), and one pass counts
// every value and copies out those of the guessed buckets. The counts then
// say where each rank truly is: a guess that missed a rank's bucket costs
// a second pass, which copies out the buckets as a level does without a
// guess, with the counts already taken; the order statistics are exact
// either way. Each rank's guess is every bucket from the one holding the
// sample's rank q·n − m to the one holding q·n + m, m four standard
// deviations of that rank (√(n·q·(1−q)), as if the sample were drawn at
// random) and two more, and from the level's first bucket or to its last
// where that passes the sample's ends: the true rank's bucket is among
// them unless the sample is far from the whole, as it can be when the
// values repeat a pattern in step with the sampling. A sample of 2^20
// takes a few milliseconds to count, and its ranks' spread (0.05 % of
// the values at the median) keeps the copies near what the wanted
// buckets alone hold: 15 MB against 4 MB, for 127 M gaps.
var (
	guessMin   = 1 << 22 // the fewest values a level guesses for
	sampleSize = 1 << 20
)

// guess selects the ranks of ks in the level by a guess of their buckets
// (see guessMin), and says whether it did. When the guess missed, the
// level holds the counts a pass took (partCounts), and copyWanted
// finishes the selection; when it guessed nothing, it holds none.
func (l *level[T]) guess(ks []int, out []T) bool {
	step := max(1, l.s.N/sampleSize)
	sample := make([]int, len(l.counts))
	n := l.s.sampleCounts(l.lo, l.shift, step, sample)
	wanted := guessBuckets(sample, n, l.s.N, ks)
	if wanted == nil {
		return false
	}
	slot := make([]int32, len(l.counts))
	for j, b := range wanted {
		slot[b] = int32(j + 1)
	}
	partSubs := l.countCopy(slot, wanted, sample, n)
	bucketOf, below := l.bucketsOf(ks)
	for _, b := range bucketOf {
		if slot[b] == 0 {
			return false // the counts are taken: copyWanted goes on
		}
	}
	l.selectIn(ks, out, bucketOf, below, func(b int) Sample[T] {
		set := Sample[T]{N: l.counts[b]}
		for p := range partSubs {
			set.Segs = append(set.Segs, partSubs[p][slot[b]-1])
		}
		return set
	})
	return true
}

// countCopy counts every value of each part and copies out those of the
// wanted buckets (slot[b] is 1 + the index of bucket b in wanted), each
// part into sets of its own, made with room for what the sample (n values
// counted in sample) says they will hold, and a quarter more.
func (l *level[T]) countCopy(slot []int32, wanted []int, sample []int, n int) [][][]T {
	l.partCounts = make([][]int, len(l.parts))
	partSubs := make([][][]T, len(l.parts))
	inParallel(l.parts, func(p int, part Sample[T]) {
		l.partCounts[p] = make([]int, len(l.counts))
		partSubs[p] = make([][]T, len(wanted))
		for j, b := range wanted {
			partSubs[p][j] = make([]T, 0, sample[b]*part.N/n*5/4+64)
		}
		part.countCopy(l.lo, l.shift, l.partCounts[p], slot, partSubs[p])
	})
	l.sumCounts()
	return partSubs
}

// guessBuckets returns the buckets, in order, that hold the ranks of ks in
// a sample of N values, by n of them counted into their buckets in
// sample (see guessMin); nil when those buckets hold more than a
// sixteenth of the sample, which is then better counted before it is
// copied: a copy is memory taken beside the sample.
func guessBuckets(sample []int, n, N int, ks []int) []int {
	var wanted []int
	for _, k := range ks {
		q := float64(k) / float64(N)
		m := 4*math.Sqrt(float64(n)*q*(1-q)) + 2
		// Past the sample's ends, the buckets run to the level's: the
		// sample need not hold the least value or the greatest.
		from, to := 0, len(sample)-1
		if r := q*float64(n) - m; r > 0 {
			from = bucketOfRank(sample, int(r))
		}
		if r := math.Ceil(q*float64(n) + m); r < float64(n-1) {
			to = bucketOfRank(sample, int(r))
		}
		for b := from; b <= to; b++ {
			wanted = append(wanted, b)
		}
	}
	slices.Sort(wanted)
	wanted = slices.Compact(wanted)
	held := 0
	for _, b := range wanted {
		held += sample[b]
	}
	if held > n/16 {
		return nil
	}
	return wanted
}

// bucketOfRank returns the bucket that holds rank r (from 0) of the values
// counted in counts.
func bucketOfRank(counts []int, r int) int {
	cum := 0
	for b, c := range counts {
		cum += c
		if cum > r {
			return b
		}
	}
	return len(counts) - 1
}

// sampleCounts counts every step-th value of the sample into counts, by
// its offset from lo shifted right by shift, and returns how many.
func (s Sample[T]) sampleCounts(lo T, shift uint, step int, counts []int) int {
	n, next := 0, 0 // next is the index in the segment of the next value counted
	for k := range s.segs() {
		seg := s.seg(k)
		m := len(seg)
		if s.Gaps {
			m = max(0, m-1)
		}
		for ; next < m; next += step {
			counts[uint64(s.value(seg, next)-lo)>>shift]++
			n++
		}
		next -= m
	}
	return n
}

// value returns value i of a segment of the sample.
func (s Sample[T]) value(seg []T, i int) T {
	switch {
	case s.Gaps:
		return seg[i+1] - seg[i]
	case s.Float:
		return T(floatKey(int64(seg[i])))
	}
	return seg[i]
}

// countCopy is count and copyOut in one pass.
func (s Sample[T]) countCopy(lo T, shift uint, counts []int, slot []int32, subs [][]T) {
	for k := range s.segs() {
		seg := s.seg(k)
		switch {
		case s.Gaps:
			for i := 1; i < len(seg); i++ {
				x := seg[i] - seg[i-1]
				b := uint64(x-lo) >> shift
				counts[b]++
				if j := slot[b]; j != 0 {
					subs[j-1] = append(subs[j-1], x)
				}
			}
		case s.Float:
			for _, x := range seg {
				key := T(floatKey(int64(x)))
				b := uint64(key-lo) >> shift
				counts[b]++
				if j := slot[b]; j != 0 {
					subs[j-1] = append(subs[j-1], key)
				}
			}
		default:
			for _, x := range seg {
				b := uint64(x-lo) >> shift
				counts[b]++
				if j := slot[b]; j != 0 {
					subs[j-1] = append(subs[j-1], x)
				}
			}
		}
	}
}
