// Package idkeys finds the items whose id repeats an earlier item's, on
// every core, without a map of millions of strings.
package idkeys

import (
	"hash/maphash"
	"math/bits"
	"slices"

	"github.com/llmmetrics/llmmetrics/internal/hugepage"
	"github.com/llmmetrics/llmmetrics/internal/parts"
	"github.com/llmmetrics/llmmetrics/internal/radix"
)

// A map of millions of strings is slow to build, so each id is hashed into
// a key, and only records with equal hashes have their ids compared. The
// records are validated in runs, one for each core (see parts.Split); each
// core puts the keys of its own run in buckets by the top bits of their
// hashes as soon as it has validated it (see Bucket). A bucket of all the
// runs then holds a few thousand keys at most, among which those whose
// hashes may repeat are found with two small bit sets that stay in the
// core's cache (see finder): only they are sorted, a few hundred keys
// where there is no repeat. The keys are never sorted whole.

// A Dup is an item whose id an earlier one, First, has.
type Dup struct{ At, First int }

// Keys are the keys by which repeated ids are found (see Repeats):
// keys[i] holds the hash of record i's id in its high bits and i in the
// low ones, or noKey when the record is invalid or has no id. Each key
// thus sorts after those of earlier records with the same hash. They are
// taken on every core as the records are validated, each run of parts by
// its core, which then puts them in buckets (see Bucket).
type Keys struct {
	seed    maphash.Seed
	shift   int
	keys    []uint64 // mapped apart from Go's heap (see hugepage.Map)
	parts   [][2]int // the runs [lo, hi) of records, each bucketed apart
	counts  [][]int  // counts[p][b] is the number of run p's keys in bucket b
	release func()   // gives the keys' memory back
}

// noKey marks a record without a key. No key is all ones: its index, below
// the number of records, leaves a zero in the low bits.
const noKey = ^uint64(0)

// New returns room for the keys of n records, validated in the runs
// parts.Split gives (see Parts).
func New(n int) *Keys {
	keys, release := hugepage.Map[uint64](n)
	return newKeys(keys, bits.Len(uint(n)), parts.Split(n), release)
}

// newKeys returns keys of records in the given runs, shift bits of index
// below each hash.
func newKeys(keys []uint64, shift int, runs [][2]int, release func()) *Keys {
	return &Keys{seed: maphash.MakeSeed(), shift: shift, keys: keys, parts: runs, counts: make([][]int, len(runs)), release: release}
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

// Parts returns the runs [lo, hi) of records whose keys are bucketed apart,
// each by a core (see Bucket).
func (k *Keys) Parts() [][2]int { return k.parts }

// Release gives the keys' memory back, once Repeats has run.
func (k *Keys) Release() { k.release() }

// bucketBits is the number of a key's top bits, all of them hash bits,
// that name its bucket: 256 buckets. The pass that puts the keys in their
// buckets writes at one place in each bucket at a time, and 256 such
// places stay in the level-1 cache where 1,024 (a radix sort's first digit
// on millions of keys, see radix.Partition) do not: on the 2,000,000 ids
// of a 2 M-row CSV, this pass and the finder took 114 samples of perf at
// 4 kHz (the mean of five runs) with 256 buckets, 158 with 1,024.
func (k *Keys) bucketBits() uint { return uint(min(8, 64-k.shift)) }

// Bucket puts the keys of run p, once they are all set, in order of their
// buckets, on the core that set them.
func (k *Keys) Bucket(p int) {
	lo, hi := k.parts[p][0], k.parts[p][1]
	k.counts[p] = radix.Partition(k.keys[lo:hi], k.bucketBits())
}

// Repeats finds the valid records whose id repeats that of an earlier
// valid record, in input order, each with the first record of its id, id
// giving the id of a record. Each run of keys must have been bucketed (see
// Bucket). The buckets are shared out among the cores.
func (ids *Keys) Repeats(id func(int) string) []Dup {
	nb := 1 << ids.bucketBits()
	starts := ids.bucketStarts(nb)
	q := len(ids.parts)
	found := make([][]Dup, q)
	parts.Each(make([][2]int, q), func(p, _, _ int) {
		f := newFinder(id, ids.shift, ids.bucketBits(), maxBucket(starts))
		in := make([][]uint64, len(starts))
		for b := nb * p / q; b < nb*(p+1)/q; b++ {
			for r, st := range starts {
				in[r] = ids.keys[st[b]:st[b+1]]
			}
			f.bucket(in)
		}
		found[p] = f.dups
	})
	var dups []Dup
	for _, f := range found {
		dups = append(dups, f...)
	}
	slices.SortFunc(dups, func(a, b Dup) int { return a.At - b.At })
	return dups
}

// bucketStarts returns, for each run, where each of its nb buckets starts
// in the keys, and where the last ends: starts[r][b], starts[r][nb].
func (k *Keys) bucketStarts(nb int) [][]int {
	starts := make([][]int, len(k.parts))
	for r, part := range k.parts {
		st := make([]int, nb+1)
		st[0] = part[0]
		for b := range nb {
			c := 0
			if k.counts[r] != nil { // an empty run has none
				c = k.counts[r][b]
			}
			st[b+1] = st[b] + c
		}
		starts[r] = st
	}
	return starts
}

// maxBucket returns the most keys a bucket holds, over all runs.
func maxBucket(starts [][]int) int {
	most := 0
	for b := range len(starts[0]) - 1 {
		n := 0
		for _, st := range starts {
			n += st[b+1] - st[b]
		}
		most = max(most, n)
	}
	return most
}
