// Package idkeys finds the items whose id repeats an earlier item's, on
// every core, without a map of millions of strings.
package idkeys

import (
	"hash/maphash"
	"math/bits"
	"slices"
	"time"
	"unsafe"

	"github.com/llmmetrics/llmmetrics/internal/hugepage"
	"github.com/llmmetrics/llmmetrics/internal/parts"
	"github.com/llmmetrics/llmmetrics/internal/radix"
)

// A map of millions of strings is slow to build, so each id is hashed into
// a key and the keys sorted: records with one id then sit together, and
// only records with equal hashes have their ids compared. The records are
// validated in runs, one for each core (see parts.Split); each core sorts the
// keys of its own run as soon as it has validated it, and the sorted runs
// are read as one by merging them, a range of hashes on each core.

// A Dup is an item whose id an earlier one, First, has.
type Dup struct{ At, First int }

// Keys are the keys by which repeated ids are found (see Repeats):
// keys[i] holds the hash of record i's id in its high bits and i in the
// low ones, or noKey when the record is invalid or has no id. Each key
// thus sorts after those of earlier records with the same hash. They are
// taken on every core as the records are validated, each run of parts by
// its core, which then sorts them (see SortRun).
type Keys struct {
	seed    maphash.Seed
	shift   int
	keys    []uint64 // mapped apart from Go's heap (see hugepage.Map)
	parts   [][2]int // the runs [lo, hi) of records, each sorted apart
	release func()   // gives the keys' memory back
}

// noKey marks a record without a key. No key is all ones: its index, below
// the number of records, leaves a zero in the low bits.
const noKey = ^uint64(0)

// New returns room for the keys of n records, validated in the runs
// parts.Split gives (see Parts).
func New(n int) *Keys {
	keys, release := hugepage.Map[uint64](n)
	return &Keys{
		seed:    maphash.MakeSeed(),
		shift:   bits.Len(uint(n)),
		keys:    keys,
		parts:   parts.Split(n),
		release: release,
	}
}

// Spare returns the keys' memory, free once Repeats has run, as empty
// room for a duration for each record, until Release is called. Of all the memory Summarize
// takes, a word for each record is worth not taking twice: for 5,000,000
// rows it is 40 MB, which a fresh allocation would have the system clear
// again.
func (k *Keys) Spare() []time.Duration {
	return unsafe.Slice((*time.Duration)(unsafe.Pointer(unsafe.SliceData(k.keys))), cap(k.keys))[:0]
}

// Add sets the key of record i, valid, with the given id.
func (k *Keys) Add(i int, id string) {
	if id == "" {
		k.keys[i] = noKey
		return
	}
	k.keys[i] = maphash.String(k.seed, id)<<k.shift | uint64(i)
}

// None sets record i to have no key: it is invalid.
func (k *Keys) None(i int) { k.keys[i] = noKey }

// Parts returns the runs [lo, hi) of records whose keys are sorted apart,
// each by a core (see SortRun).
func (k *Keys) Parts() [][2]int { return k.parts }

// Release gives the keys' memory back; Spare's room with it.
func (k *Keys) Release() { k.release() }

// SortRun sorts the keys of run p, once they are all set, on the core
// that set them.
func (k *Keys) SortRun(p int) {
	lo, hi := k.parts[p][0], k.parts[p][1]
	radix.SortOn(k.keys[lo:hi], 1)
}

// Repeats finds the valid records whose id repeats that of an earlier
// valid record, in input order, each with the first record of its id, id
// giving the id of a record. Each run of keys must have been sorted (see
// SortRun).
func (ids *Keys) Repeats(id func(int) string) []Dup {
	runs := ids.sortedRuns()
	bounds := keyBounds(len(ids.parts), ids.shift)
	found := make([][]Dup, len(bounds)-1)
	parts.Each(make([][2]int, len(found)), func(q, _, _ int) {
		in := make([][]uint64, len(runs))
		for r, run := range runs {
			a, _ := slices.BinarySearch(run, bounds[q])
			b, _ := slices.BinarySearch(run, bounds[q+1])
			in[r] = run[a:b]
		}
		found[q] = repeatsIn(id, in, ids.shift)
	})
	var dups []Dup
	for _, f := range found {
		dups = append(dups, f...)
	}
	slices.SortFunc(dups, func(a, b Dup) int { return a.At - b.At })
	return dups
}

// sortedRuns returns the runs of keys, each without the keys of records
// that have none: those sort last, as no key is all ones, and are cut off.
func (k *Keys) sortedRuns() [][]uint64 {
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
func repeatsIn(id func(int) string, runs [][]uint64, shift int) []Dup {
	index := func(k uint64) int { return int(k & (1<<shift - 1)) }
	var dups []Dup
	var group []uint64 // keys of one hash, in input order
	compare := func() {
		for x := 1; x < len(group); x++ {
			i := index(group[x])
			for y := range x {
				if j := index(group[y]); id(j) == id(i) {
					dups = append(dups, Dup{i, j})
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
