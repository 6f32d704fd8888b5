package llmmetrics

import (
	"hash/maphash"
	"math/bits"
	"slices"
	"time"
	"unsafe"

	"github.com/llmmetrics/llmmetrics/internal/hugepage"
	"github.com/llmmetrics/llmmetrics/internal/radix"
)

// Finding the records whose id repeats an earlier record's.
//
// A map of millions of strings is slow to build, so each id is hashed into
// a key and the keys sorted: records with one id then sit together, and
// only records with equal hashes have their ids compared. The records are
// validated in runs, one for each core (see inParts); each core sorts the
// keys of its own run as soon as it has validated it, and the sorted runs
// are read as one by merging them, a range of hashes on each core.

// duplicate is a record whose id an earlier one has.
type duplicate struct{ at, first int }

// idKeys are the keys by which repeated ids are found (see duplicateIDs):
// keys[i] holds the hash of record i's id in its high bits and i in the
// low ones, or noKey when the record is invalid or has no id. Each key
// thus sorts after those of earlier records with the same hash. They are
// taken on every core as the records are validated, each run of parts by
// its core, which then sorts them (see sortRun).
type idKeys struct {
	seed    maphash.Seed
	shift   int
	keys    []uint64 // mapped apart from Go's heap (see hugepage.Map)
	parts   [][2]int // the runs [lo, hi) of records, each sorted apart
	release func()   // gives the keys' memory back
}

// noKey marks a record without a key. No key is all ones: its index, below
// the number of records, leaves a zero in the low bits.
const noKey = ^uint64(0)

// newIDKeys returns room for the keys of n records, validated in the runs
// inParts gives.
func newIDKeys(n int) *idKeys {
	keys, release := hugepage.Map[uint64](n)
	return &idKeys{
		seed:    maphash.MakeSeed(),
		shift:   bits.Len(uint(n)),
		keys:    keys,
		parts:   inParts(n),
		release: release,
	}
}

// spare returns the keys' memory, free once duplicateIDs has run, as
// empty room for a duration for each record, until release is called. Of all the memory Summarize
// takes, a word for each record is worth not taking twice: for 5,000,000
// rows it is 40 MB, which a fresh allocation would have the system clear
// again.
func (k *idKeys) spare() []time.Duration {
	return unsafe.Slice((*time.Duration)(unsafe.Pointer(unsafe.SliceData(k.keys))), cap(k.keys))[:0]
}

// add sets the key of record i, valid, with the given id.
func (k *idKeys) add(i int, id string) {
	if id == "" {
		k.keys[i] = noKey
		return
	}
	k.keys[i] = maphash.String(k.seed, id)<<k.shift | uint64(i)
}

// sortRun sorts the keys of run p, once they are all set, on the core
// that set them.
func (k *idKeys) sortRun(p int) {
	lo, hi := k.parts[p][0], k.parts[p][1]
	radix.SortOn(k.keys[lo:hi], 1)
}

// duplicateIDs finds the valid records whose id repeats that of an earlier
// valid record, in input order, each with the first record of its id. Each
// run of keys must have been sorted (see sortRun).
func duplicateIDs(src *source, ids *idKeys) []duplicate {
	runs := ids.sortedRuns()
	bounds := keyBounds(len(ids.parts), ids.shift)
	found := make([][]duplicate, len(bounds)-1)
	eachPart(make([][2]int, len(found)), func(q, _, _ int) {
		in := make([][]uint64, len(runs))
		for r, run := range runs {
			a, _ := slices.BinarySearch(run, bounds[q])
			b, _ := slices.BinarySearch(run, bounds[q+1])
			in[r] = run[a:b]
		}
		found[q] = repeatsIn(src, in, ids.shift)
	})
	var dups []duplicate
	for _, f := range found {
		dups = append(dups, f...)
	}
	slices.SortFunc(dups, func(a, b duplicate) int { return a.at - b.at })
	return dups
}

// sortedRuns returns the runs of keys, each without the keys of records
// that have none: those sort last, as no key is all ones, and are cut off.
func (k *idKeys) sortedRuns() [][]uint64 {
	runs := make([][]uint64, len(k.parts))
	for p, part := range k.parts {
		run := k.keys[part[0]:part[1]]
		end, _ := slices.BinarySearch(run, noKey)
		runs[p] = run[:end]
	}
	return runs
}

// keyBounds splits the keys into n ranges, [bounds[q], bounds[q+1]), of
// about as many hashes each (the top 64 − shift bits of a key): the keys
// of one hash fall in one range. The last range ends at noKey, above every
// key.
func keyBounds(n, shift int) []uint64 {
	bounds := make([]uint64, n+1)
	for q := range n {
		// The q-th of n equal steps across the 2^(64 − shift) hashes.
		hi, lo := bits.Mul64(uint64(q), 1<<(64-shift))
		if shift == 0 { // no records, no keys: one range
			hi, lo = 0, 0
		}
		h, _ := bits.Div64(hi, lo, uint64(n))
		bounds[q] = h << shift
	}
	bounds[n] = noKey
	return bounds
}

// repeatsIn finds, among the keys of the given sorted runs, the records
// whose id repeats that of an earlier record. The runs are merged: a
// record's key follows those of earlier records with the same hash, so
// that in each group of equal hashes a record is compared with the records
// before it.
func repeatsIn(src *source, runs [][]uint64, shift int) []duplicate {
	index := func(k uint64) int { return int(k & (1<<shift - 1)) }
	var dups []duplicate
	var group []uint64 // keys of one hash, in input order
	compare := func() {
		for x := 1; x < len(group); x++ {
			i := index(group[x])
			for y := range x {
				if j := index(group[y]); src.id(j) == src.id(i) {
					dups = append(dups, duplicate{i, j})
					break
				}
			}
		}
	}
	for key := range radix.Merge(runs) {
		if len(group) > 0 && key>>shift != group[0]>>shift {
			if len(group) > 1 {
				compare()
			}
			group = group[:0]
		}
		group = append(group, key)
	}
	if len(group) > 1 {
		compare()
	}
	return dups
}
