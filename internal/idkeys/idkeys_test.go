package idkeys

import (
	"fmt"
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
		ids := newKeys(make([]uint64, n), shift, parts, nil)
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
			ids.Bucket(p)
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

// BenchmarkDuplicateIDs finds the repeated ids among 5,000,000 keys of
// distinct hashes, in the runs of this machine's cores: "sort" puts each
// run's keys in buckets on its core, as classification does, and "merge"
// reads the buckets of all runs, looking for repeats.
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
	ids := newKeys(make([]uint64, n), shift, parts.Split(n), nil)
	id := func(int) string { panic("no hash repeats: no id is read") }
	sortRuns := func() {
		copy(ids.keys, keys)
		parts.Each(ids.parts, func(p, _, _ int) { ids.Bucket(p) })
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

// With the ids' own hashes, in runs of every core, Repeats finds what a
// map of the ids finds: each id seen before, with the first record of it.
// The ids repeat at random among up to 20,000 records, so that the buckets
// hold many keys, most of them of ids seen once.
func TestRepeatsAsAMap(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(0, 20_000).Draw(t, "n")
		distinct := rapid.IntRange(1, 2*n+1).Draw(t, "distinct")
		seed := rapid.Uint64().Draw(t, "seed")
		ids := New(n)
		defer ids.Release()
		recs := make([]string, n)
		first := map[string]int{}
		var want []Dup
		for i := range recs {
			h := (uint64(i) + seed) * 0x9E3779B97F4A7C15
			recs[i] = fmt.Sprint("r", h%uint64(distinct))
			if h>>60 == 0 { // about one in 16 invalid
				ids.None(i)
				continue
			}
			ids.Add(i, recs[i])
			if j, ok := first[recs[i]]; ok {
				want = append(want, Dup{i, j})
			} else {
				first[recs[i]] = i
			}
		}
		parts.Each(ids.Parts(), func(p, _, _ int) { ids.Bucket(p) })
		if got := ids.Repeats(func(i int) string { return recs[i] }); !slices.Equal(got, want) {
			t.Fatalf("got %d repeats, want %d", len(got), len(want))
		}
	})
}
