package llmmetrics

import "slices"

// Large runs sort millions of integers (send times, the ends of requests in
// flight, the hashes of ids). A radix sort does it in a few linear passes,
// where a comparison sort takes about log₂ n of them; the order is the
// same. This one is the in-place, most-significant-byte-first kind
// (American flag sort): it needs no second buffer as large as the input,
// which on a big run is memory that would have to be provided and touched.

// radixMin is the size below which a comparison sort is as quick.
const radixMin = 1 << 10

// sortInts sorts xs in increasing order.
func sortInts[T ~int64 | ~uint64](xs []T) {
	if len(xs) < radixMin {
		slices.Sort(xs)
		return
	}
	// Signed values are sorted by their bits with the sign bit flipped,
	// which puts the negative ones first, in order.
	var flip uint64
	if ^T(0) < 0 {
		flip = 1 << 63
	}
	// The bytes above the highest bit in which the values differ are the
	// same in all of them: the sort starts below them.
	var differ uint64
	for _, x := range xs {
		differ |= uint64(x) ^ uint64(xs[0])
	}
	shift := 0
	for shift+8 < 64 && differ>>(shift+8) != 0 {
		shift += 8
	}
	flagSort(xs, flip, uint(shift))
}

// flagSort sorts xs by their byte at shift and, within each byte, by the
// bytes below it.
func flagSort[T ~int64 | ~uint64](xs []T, flip uint64, shift uint) {
	if len(xs) < radixMin {
		slices.Sort(xs)
		return
	}
	digit := func(x T) byte { return byte((uint64(x) ^ flip) >> shift) }
	var counts [256]int
	for _, x := range xs {
		counts[digit(x)]++
	}
	// next[b] is where the next value of bucket b goes; end[b] is where
	// bucket b ends.
	var next, end [256]int
	sum := 0
	for b := range 256 {
		next[b] = sum
		sum += counts[b]
		end[b] = sum
	}
	// Each value is swapped into its bucket until the bucket's slot holds
	// a value of its own.
	for b := range 256 {
		for next[b] < end[b] {
			x := xs[next[b]]
			d := digit(x)
			if int(d) == b {
				next[b]++
				continue
			}
			xs[next[b]], xs[next[d]] = xs[next[d]], x
			next[d]++
		}
	}
	if shift == 0 {
		return
	}
	lo := 0
	for b := range 256 {
		if counts[b] > 1 {
			flagSort(xs[lo:lo+counts[b]], flip, shift-8)
		}
		lo += counts[b]
	}
}
