package idkeys

import (
	"math/bits"
	"slices"
	"testing"

	"github.com/llmmetrics/llmmetrics/internal/parts"
	"pgregory.net/rapid"
)

// Repeats finds each record whose id an earlier record with a key
// has, with the first such record, whatever the runs the keys were sorted
// in, when hashes collide across ids, and when the records of one hash lie
// in several runs. The keys are made here with a hash of eight values, one
// in each eighth of the hashes (so that every range of them has some):
// a plain search of the earlier records is the expected answer.
func TestDuplicateIDsAcrossRuns(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 300).Draw(t, "n")
		recs := make([]struct{ ID string }, n)
		for i := range recs {
			recs[i].ID = rapid.SampledFrom([]string{"", "a", "b", "c", "dd", "ee", "fff", "g", "hh"}).Draw(t, "id")
		}
		keyless := make([]bool, n) // an invalid record has no key either
		for i := range keyless {
			keyless[i] = recs[i].ID == "" || rapid.IntRange(0, 9).Draw(t, "invalid") == 0
		}
		// Runs: cut [0, n) at a few sorted points.
		cuts := rapid.SliceOfN(rapid.IntRange(0, n), 0, 5).Draw(t, "cuts")
		slices.Sort(cuts)
		var parts [][2]int
		lo := 0
		for _, c := range append(cuts, n) {
			parts = append(parts, [2]int{lo, c})
			lo = c
		}
		shift := bits.Len(uint(n))
		ids := &Keys{shift: shift, keys: make([]uint64, n), parts: parts}
		for i, r := range recs {
			if keyless[i] {
				ids.keys[i] = noKey
				continue
			}
			weak := uint64(len(r.ID)*3+int(r.ID[0])) % 8 // "b" and "ee" collide, say
			hash := weak << (64 - shift - 3)
			ids.keys[i] = hash<<shift | uint64(i)
		}
		for p := range parts {
			ids.SortRun(p)
		}
		got := ids.Repeats(func(i int) string { return recs[i].ID })

		var want []Dup
		for i := range recs {
			if keyless[i] {
				continue
			}
			for j := range i {
				if !keyless[j] && recs[j].ID == recs[i].ID {
					want = append(want, Dup{i, j})
					break
				}
			}
		}
		if !slices.Equal(got, want) {
			t.Fatalf("runs %v: got %v, want %v", parts, got, want)
		}
	})
}

// keyBounds splits the keys into ranges that start at 0, do not fall, end
// at noKey, and start on a hash (no index bits set), so that the keys of
// one hash share a range. With n ranges of 2^h hashes each, range q starts
// at hash q·2^h.
func TestKeyBounds(t *testing.T) {
	for _, n := range []int{1, 2, 3, 8, 64} {
		for _, shift := range []int{0, 1, 5, 23, 40, 62} {
			b := keyBounds(n, shift)
			if len(b) != n+1 || b[0] != 0 || b[n] != noKey {
				t.Fatalf("keyBounds(%d, %d) = %v", n, shift, b)
			}
			for q := 1; q < n && shift > 0; q++ {
				if b[q] < b[q-1] || b[q]&(1<<shift-1) != 0 {
					t.Fatalf("keyBounds(%d, %d): bound %d is %#x after %#x", n, shift, q, b[q], b[q-1])
				}
			}
		}
	}
	// 8 ranges of the 2^9 hashes of shift 55: 64 hashes each.
	b := keyBounds(8, 55)
	for q := range 8 {
		if want := uint64(64*q) << 55; b[q] != want {
			t.Errorf("keyBounds(8, 55)[%d] = %#x, want %#x", q, b[q], want)
		}
	}
}

// BenchmarkDuplicateIDs finds the repeated ids among 5,000,000 keys of
// distinct hashes, in the runs of this machine's cores: "sort" sorts each
// run on its core, as classification does, and "merge" reads the sorted
// runs as one, looking for repeats.
func BenchmarkDuplicateIDs(b *testing.B) {
	const n = 5_000_000
	shift := bits.Len(uint(n))
	keys := make([]uint64, n)
	for i := range keys {
		// Multiplying by an odd number permutes the hashes of 64 − shift
		// bits: they are distinct, in no order.
		hash := uint64(i) * 0x9E3779B97F4A7C15 & (1<<(64-shift) - 1)
		keys[i] = hash<<shift | uint64(i)
	}
	ids := &Keys{shift: shift, keys: make([]uint64, n), parts: parts.Split(n)}
	id := func(int) string { panic("no hash repeats: no id is read") }
	sortRuns := func() {
		copy(ids.keys, keys)
		parts.Each(ids.parts, func(p, _, _ int) { ids.SortRun(p) })
	}
	b.Run("sort", func(b *testing.B) {
		for b.Loop() {
			sortRuns()
		}
	})
	b.Run("merge", func(b *testing.B) {
		sortRuns()
		for b.Loop() {
			if d := ids.Repeats(id); len(d) != 0 {
				b.Fatalf("%d repeats", len(d))
			}
		}
	})
}
