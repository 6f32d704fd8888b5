package radix

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/llmmetrics/llmmetrics/internal/hugepage"
)

// Sort gives the order slices.Sort gives, for signed and unsigned
// values, short and long slices, and values that agree in some bytes.
func TestSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	// The largest size is sorted on every core. The mask 0xffffffff marks
	// values whose first byte is 0 nine times in ten: one of that byte's
	// buckets holds most values, and is itself sorted on every core.
	for _, n := range []int{0, 1, 2, radixMin - 1, radixMin, 3*radixMin + 7, wideDigitMin, 5*wideDigitMin + 3, parallelSortMin + 300_000} {
		for _, mask := range []uint64{math.MaxUint64, 0xff00ff, 1 << 63, 0, 0xff, 0xffff000000000000, 0xffffffff} {
			s := make([]int64, n)
			u := make([]uint64, n)
			for i := range n {
				u[i] = rng.Uint64() & mask
				if mask == 0xffffffff {
					u[i] = rng.Uint64() & 0xffffff
					if rng.IntN(10) == 0 {
						u[i] |= rng.Uint64() & 0xff000000
					}
				}
				s[i] = int64(u[i])
			}
			ws, wu := slices.Clone(s), slices.Clone(u)
			slices.Sort(ws)
			slices.Sort(wu)
			Sort(s)
			Sort(u)
			if !slices.Equal(s, ws) || !slices.Equal(u, wu) {
				t.Fatalf("n %d, mask %x: not sorted as slices.Sort sorts", n, mask)
			}
		}
	}
}

// BenchmarkSort sorts 5,000,000 id hashes (random 64-bit keys) and
// 5,000,000 request ends (send times 5 ms apart plus up to 5 s): the two
// sorts of a 5 M-row summary.
func BenchmarkSort(b *testing.B) {
	rng := rand.New(rand.NewPCG(5, 5))
	keys, ends := make([]uint64, 5_000_000), make([]int64, 5_000_000)
	for i := range keys {
		keys[i] = rng.Uint64()
		ends[i] = int64(i)*5_000_000 + rng.Int64N(5_000_000_000)
	}
	kbuf, ebuf := hugepage.Make[uint64](len(keys), len(keys)), hugepage.Make[int64](len(ends), len(ends)) // as in Summarize
	for _, c := range []struct {
		name string
		sort func()
	}{
		{"hashes", func() { copy(kbuf, keys); Sort(kbuf) }},
		{"ends", func() { copy(ebuf, ends); Sort(ebuf) }},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				c.sort()
			}
		})
	}
}
