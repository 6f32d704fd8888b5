package llmmetrics

import "slices"

// Large runs sort millions of integers (send times, the edges of the
// requests in flight, the hashes of ids). A least-significant-digit radix
// sort does it in a few linear passes, where a comparison sort takes
// about log₂ n of them; the order is the same.

// radixMin is the size below which a comparison sort is as quick.
const radixMin = 1 << 12

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
	var counts [8][256]int
	for _, x := range xs {
		u := uint64(x) ^ flip
		for d := range 8 {
			counts[d][byte(u>>(8*d))]++
		}
	}
	tmp := make([]T, len(xs))
	src, dst := xs, tmp
	for d := range 8 {
		c := &counts[d]
		shift := 8 * d
		if c[byte((uint64(src[0])^flip)>>shift)] == len(src) {
			continue // every value has the same byte here
		}
		var at [256]int
		sum := 0
		for b := range 256 {
			at[b] = sum
			sum += c[b]
		}
		for _, x := range src {
			b := byte((uint64(x) ^ flip) >> shift)
			dst[at[b]] = x
			at[b]++
		}
		src, dst = dst, src
	}
	if &src[0] != &xs[0] {
		copy(xs, src)
	}
}
