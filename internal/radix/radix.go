// Package radix sorts large slices of integers in a few linear passes,
// in place, on every core, and merges sorted runs of them.
package radix

import (
	"math/bits"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
)

// Large runs sort millions of integers (send times, the ends of requests in
// flight, the hashes of ids). A radix sort does it in a few linear passes,
// where a comparison sort takes about log₂ n of them; the order is the
// same. This one is the in-place, most-significant-digit-first kind
// (American flag sort): it needs no second buffer as large as the input,
// which on a big run is memory that would have to be provided and touched.
// A digit is 10 bits on large slices and 8 below (see wideDigitMin).

// radixMin is the size below which a comparison sort is as quick.
const radixMin = 1 << 10

// bucketMin is the size below which a bucket of a radix sort is finished
// by comparison: a digit's pass over a bucket of a few dozen values is
// quicker than sorting them (sorting 1 M hashes took 33 ms with buckets of
// fewer than 1,024 values finished by comparison, 19 ms with 64).
const bucketMin = 1 << 6

// parallelSortMin is the size from which the buckets of the first digit
// are sorted on every core: after that digit's pass, which puts each value
// in its bucket, the buckets are independent.
const parallelSortMin = 1 << 18

// Sort sorts xs in increasing order, on every core when xs is large.
func Sort[T ~int64 | ~uint64](xs []T) {
	workers := 1
	if len(xs) >= parallelSortMin {
		workers = runtime.GOMAXPROCS(0)
	}
	SortOn(xs, workers)
}

// SortOn sorts xs in increasing order on the given number of
// goroutines.
func SortOn[T ~int64 | ~uint64](xs []T, workers int) {
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
	// The bits above the highest in which the values differ are the same
	// in all of them: the sort starts below them.
	var differ uint64
	for _, x := range xs {
		differ |= uint64(x) ^ uint64(xs[0])
	}
	if differ == 0 {
		return // all equal
	}
	flagSort(xs, flip, uint(bits.Len64(differ)), workers)
}

// wideDigitMin is the size from which a digit is 10 bits rather than 8:
// 1,024 buckets split a slice into buckets small enough that the next
// digit finishes them at once, where 256 buckets leave many of a few
// dozen values each, slow to sort by comparison. On 5 M values (the id
// hashes and the request ends of a 5 M-row summary) 8-bit digits took
// 150 and 160 ms, 10-bit ones 120 and 90 ms, 11-bit ones 175 and 80 ms:
// past 1,024 the buckets' cursors spread the writes over too many pages.
// The second digit of those 5 M values, on buckets of about 4,900, is 10
// bits wide too: 105-110 and 68-80 ms, from 130-145 and 90-105 with 8
// bits. Sorted in two runs of 2.5 M, one on each core (as the id hashes
// are, see idkeys.Keys.Repeats), the buckets hold about 2,400 values: with a
// 10-bit second digit from 2,048 values rather than 4,096, the two runs
// took 71-73 ms rather than 84-86 (1,024 was no quicker).
const wideDigitMin = 1 << 11

// flagSort sorts xs, whose values (their bits after flipping with flip)
// agree in every bit from top up, by the digit just below top and, within
// each digit, by the bits below it, the buckets of that digit on the given
// number of goroutines.
func flagSort[T ~int64 | ~uint64](xs []T, flip uint64, top uint, workers int) {
	if len(xs) < bucketMin {
		slices.Sort(xs)
		return
	}
	var shift uint
	var counts []int
	if len(xs) >= wideDigitMin {
		// Few slices are this large: their counts are allocated.
		shift = top - min(top, 10)
		counts = partition(xs, flip, shift, top, make([]int, 3<<10))
	} else {
		var room [3 << 8]int
		shift = top - min(top, 8)
		counts = partition(xs, flip, shift, top, room[:])
	}
	if shift == 0 {
		return
	}
	if workers > 1 {
		sortBuckets(xs, flip, shift, counts, workers)
		return
	}
	lo := 0
	for _, c := range counts {
		if c > 1 {
			flagSort(xs[lo:lo+c], flip, shift, 1)
		}
		lo += c
	}
}

// sortBuckets sorts the buckets of xs, counts[b] values in bucket b, by
// their bits below top on the given number of goroutines. A bucket of more
// than half the values is sorted first, itself on every core; the rest are
// shared out one at a time.
func sortBuckets[T ~int64 | ~uint64](xs []T, flip uint64, top uint, counts []int, workers int) {
	nb := len(counts)
	starts := make([]int, nb+1)
	for b, c := range counts {
		starts[b+1] = starts[b] + c
	}
	bucket := func(b int) []T { return xs[starts[b]:starts[b+1]] }
	done := make([]bool, nb)
	for b, c := range counts {
		if 2*c > len(xs) {
			flagSort(bucket(b), flip, top, workers)
			done[b] = true
		}
	}
	var shared atomic.Int32 // the next bucket to take
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for b := int(shared.Add(1) - 1); b < nb; b = int(shared.Add(1) - 1) {
				if !done[b] && len(bucket(b)) > 1 {
					flagSort(bucket(b), flip, top, 1)
				}
			}
		}()
	}
	wg.Wait()
}

// partition puts the values of xs in order of their digit, bits [shift,
// top) after flipping with flip, in place, and returns the number of
// values of each digit. room holds three times as many ints as there are
// digits, for the counts and two cursors.
func partition[T ~int64 | ~uint64](xs []T, flip uint64, shift, top uint, room []int) []int {
	mask := uint64(1)<<(top-shift) - 1
	nb := int(mask) + 1
	counts, next, end := room[:nb:nb], room[nb:2*nb:2*nb], room[2*nb:3*nb]
	digit := func(x T) int { return int((uint64(x) ^ flip) >> shift & mask) }
	for _, x := range xs {
		counts[digit(x)]++
	}
	// next[b] is where the next value of bucket b goes; end[b] is where
	// bucket b ends.
	sum := 0
	for b := range nb {
		next[b] = sum
		sum += counts[b]
		end[b] = sum
	}
	// Each value is swapped into its bucket until the bucket's slot holds
	// a value of its own.
	for b := range nb {
		for next[b] < end[b] {
			x := xs[next[b]]
			d := digit(x)
			if d == b {
				next[b]++
				continue
			}
			xs[next[b]], xs[next[d]] = xs[next[d]], x
			next[d]++
		}
	}
	return counts
}

// Partition puts the values of xs in order of their top bits bits, in
// place, and returns the number of values of each, 2^bits counts: the
// first digit's pass of a sort, alone.
func Partition(xs []uint64, bits uint) []int {
	nb := 1 << bits
	return partition(xs, 0, 64-bits, 64, make([]int, 3*nb))
}
