package llmmetrics

import (
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
)

// Large runs sort millions of integers (send times, the ends of requests in
// flight, the hashes of ids). A radix sort does it in a few linear passes,
// where a comparison sort takes about log₂ n of them; the order is the
// same. This one is the in-place, most-significant-byte-first kind
// (American flag sort): it needs no second buffer as large as the input,
// which on a big run is memory that would have to be provided and touched.

// radixMin is the size below which a comparison sort is as quick.
const radixMin = 1 << 10

// parallelSortMin is the size from which the buckets of the first byte are
// sorted on every core: after that byte's pass, which puts each value in
// its bucket, the buckets are independent.
const parallelSortMin = 1 << 18

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
	workers := 1
	if len(xs) >= parallelSortMin {
		workers = runtime.GOMAXPROCS(0)
	}
	flagSort(xs, flip, uint(shift), workers)
}

// flagSort sorts xs by their byte at shift and, within each byte, by the
// bytes below it, the buckets of that byte on the given number of
// goroutines.
func flagSort[T ~int64 | ~uint64](xs []T, flip uint64, shift uint, workers int) {
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
	var buckets [256][]T
	lo := 0
	for b := range 256 {
		buckets[b] = xs[lo : lo+counts[b]]
		lo += counts[b]
	}
	if workers <= 1 {
		for _, bucket := range buckets {
			if len(bucket) > 1 {
				flagSort(bucket, flip, shift-8, 1)
			}
		}
		return
	}
	// A bucket of more than half the values is sorted first, itself on
	// every core; the rest are shared out one at a time.
	var taken [256]bool
	for b, bucket := range buckets {
		if 2*len(bucket) > len(xs) {
			flagSort(bucket, flip, shift-8, workers)
			taken[b] = true
		}
	}
	var shared atomic.Int32 // the next bucket to take
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for b := int(shared.Add(1) - 1); b < 256; b = int(shared.Add(1) - 1) {
				if !taken[b] && len(buckets[b]) > 1 {
					flagSort(buckets[b], flip, shift-8, 1)
				}
			}
		}()
	}
	wg.Wait()
}
