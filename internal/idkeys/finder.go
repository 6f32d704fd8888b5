package idkeys

import (
	"math/bits"
	"slices"
)

// A finder finds the repeated ids among the keys of one bucket at a time,
// which hold the same top bits of their hashes. Each key has a slot, the
// next bits of its hash, in a bit set of about 16 times as many slots as a
// bucket holds keys (2^17 at most): a key whose slot an earlier key took
// is marked in a second set. The keys of marked slots, those of every
// repeated hash among them, are then sorted and their ids compared; the
// rest, whose hash no other key of the bucket has, are not. Both sets, 32 KiB
// at most, stay in the core's cache, where sorting the keys whole (as a
// radix sort does) would go over them all again, digit by digit.
type finder struct {
	id          func(int) string
	shift       int  // the bits of index below each hash
	bucketBits  uint // the top bits of a key that name its bucket
	slotShift   uint // key<<bucketBits>>slotShift is its slot
	seen, twice []uint64
	cand        []uint64 // the keys of the marked slots
	dups        []Dup
}

// newFinder returns a finder of the repeats among keys with shift bits of
// index, in buckets by their top bucketBits, most in the largest bucket.
// A slot is made of hash bits only: keys of one hash share it.
func newFinder(id func(int) string, shift int, bucketBits uint, most int) *finder {
	slotBits := min(max(bits.Len(uint(most))+4, 6), 17, 64-shift-int(bucketBits))
	slotBits = max(slotBits, 0) // no hash bit left: every key one slot
	words := max(1, (1<<slotBits)/64)
	return &finder{
		id: id, shift: shift, bucketBits: bucketBits, slotShift: uint(64 - slotBits),
		seen: make([]uint64, words), twice: make([]uint64, words),
	}
}

// slot returns the word of a set and the bit in it of key's slot.
func (f *finder) slot(key uint64) (int, uint64) {
	s := key << f.bucketBits >> f.slotShift
	return int(s / 64), 1 << (s % 64)
}

// bucket finds the repeats among the keys of one bucket, in as many runs
// as there are runs of records, noKey left out.
func (f *finder) bucket(in [][]uint64) {
	for _, keys := range in {
		for _, key := range keys {
			if w, m := f.slot(key); key != noKey {
				f.twice[w] |= f.seen[w] & m
				f.seen[w] |= m
			}
		}
	}
	f.cand = f.cand[:0]
	for _, keys := range in {
		for _, key := range keys {
			if w, m := f.slot(key); key != noKey && f.twice[w]&m != 0 {
				f.cand = append(f.cand, key)
			}
		}
	}
	clear(f.seen)
	clear(f.twice)
	if len(f.cand) > 1 {
		slices.Sort(f.cand)
		f.dups = repeatsIn(f.dups, f.id, f.cand, f.shift)
	}
}

// repeatsIn appends to dups the records whose id repeats that of an
// earlier record, among sorted keys: a record's key follows those of
// earlier records with the same hash, so that in each group of equal
// hashes a record is compared with the records before it.
func repeatsIn(dups []Dup, id func(int) string, keys []uint64, shift int) []Dup {
	index := func(k uint64) int { return int(k & (1<<shift - 1)) }
	for lo := 0; lo < len(keys); {
		hi := lo + 1
		for hi < len(keys) && keys[hi]>>shift == keys[lo]>>shift {
			hi++
		}
		group := keys[lo:hi]
		for x := 1; x < len(group); x++ {
			i := index(group[x])
			for y := range x {
				if j := index(group[y]); id(j) == id(i) {
					dups = append(dups, Dup{i, j})
					break
				}
			}
		}
		lo = hi
	}
	return dups
}
