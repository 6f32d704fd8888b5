package order

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// Key orders floats as < does, across signs, zeros, subnormals and
// infinities, and Float inverts it.
func TestKey(t *testing.T) {
	fs := []float64{math.Inf(-1), -math.MaxFloat64, -1e300, -2, -1, -1e-310, math.Copysign(0, -1), 0, 1e-310, 1e-300, 0.5, 1, 2, 1e300, math.MaxFloat64, math.Inf(1)}
	for i := range fs {
		if got := Float(Key(fs[i])); math.Float64bits(got) != math.Float64bits(fs[i]) {
			t.Errorf("Float(Key(%v)) = %v", fs[i], got)
		}
		if i > 0 && Key(fs[i-1]) >= Key(fs[i]) {
			t.Errorf("Key(%v) ≥ Key(%v)", fs[i-1], fs[i])
		}
	}
}

// Select over float keys, flat and as gaps, agrees with sorting.
func TestSelectFloatKeys(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	xs := make([]float64, 50_000)
	keys := make([]int64, len(xs))
	for i := range xs {
		xs[i] = (rng.Float64() - 0.3) * math.Pow(10, float64(rng.IntN(12)-6))
		keys[i] = Key(xs[i])
	}
	sorted := slices.Clone(xs)
	slices.Sort(sorted)
	ks := []int{0, 1, 499, 25_000, 49_998, 49_999}
	out := make([]int64, len(ks))
	Select(Flat(keys), slices.Min(keys), slices.Max(keys), ks, out)
	for i, k := range ks {
		if Float(out[i]) != sorted[k] {
			t.Errorf("rank %d: %v, want %v", k, Float(out[i]), sorted[k])
		}
	}
	// Gaps of running sums are the values themselves.
	ints := make([]int64, 3001)
	for i := 1; i < len(ints); i++ {
		ints[i] = ints[i-1] + rng.Int64N(1000) - 200
	}
	gaps := Sample[int64]{Segs: [][]int64{ints[:1500], ints[1499:]}, Gaps: true, N: 3000}
	all := gaps.AppendTo(nil)
	sortedGaps := slices.Sorted(slices.Values(all))
	out = make([]int64, 3)
	Select(gaps, slices.Min(all), slices.Max(all), []int{0, 1500, 2999}, out)
	if out[0] != sortedGaps[0] || out[1] != sortedGaps[1500] || out[2] != sortedGaps[2999] {
		t.Errorf("gaps: %v", out)
	}
}

// A sample split for the cores holds each value once, in parts of about
// equal size, whether it has one segment or many, of values or of gaps.
func TestSplit(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	for _, layout := range []struct{ segs, size int }{{1, 300_000}, {3, 70_000}, {5000, 40}, {200, 1}, {1, 0}} {
		for _, gaps := range []bool{false, true} {
			s := Sample[int64]{Gaps: gaps}
			for range layout.segs {
				seg := make([]int64, layout.size)
				v := int64(0)
				for i := range seg {
					v += rng.Int64N(1000)
					seg[i] = v
				}
				s.Segs = append(s.Segs, seg)
				if gaps {
					s.N += max(0, len(seg)-1)
				} else {
					s.N += len(seg)
				}
			}
			all := s.AppendTo(nil)
			slices.Sort(all)
			// The same segments given by a function, as a sample over
			// segments kept elsewhere is.
			byFunc := Sample[int64]{Seg: func(i int) []int64 { return s.Segs[i] }, NSegs: len(s.Segs), Gaps: gaps, N: s.N}
			for _, s := range []Sample[int64]{s, byFunc} {
				for _, k := range []int{1, 2, 3, 8} {
					var got []int64
					n := 0
					for _, p := range s.split(k) {
						vals := p.AppendTo(nil)
						if len(vals) != p.N {
							t.Fatalf("%+v gaps %v k %d: a part says N %d and holds %d", layout, gaps, k, p.N, len(vals))
						}
						n += p.N
						got = append(got, vals...)
					}
					slices.Sort(got)
					if n != s.N || !slices.Equal(got, all) {
						t.Fatalf("%+v gaps %v k %d: the parts hold other values than the sample", layout, gaps, k)
					}
				}
				// Selected on every core, the order statistics are those of
				// the sorted values.
				if s.N > 0 {
					ks := []int{0, s.N / 3, s.N / 2, s.N - 1}
					ks = slices.Compact(ks)
					out := make([]int64, len(ks))
					Select(s, all[0], all[len(all)-1], ks, out)
					for i, k := range ks {
						if out[i] != all[k] {
							t.Fatalf("%+v gaps %v: rank %d is %d, sorted %d", layout, gaps, k, out[i], all[k])
						}
					}
				}
			}
		}
	}
}

// BenchmarkSelectGaps selects four ranks among the gaps of 100,000
// segments of 128 arrivals, as Summarize does for pooled inter-token
// latencies: gaps of 15 to 35 ms, so that consecutive gaps often fall in
// one bucket.
func BenchmarkSelectGaps(b *testing.B) {
	rng := rand.New(rand.NewPCG(8, 8))
	const segs, arrivals = 100_000, 128
	arena := make([]int64, segs*arrivals)
	s := Sample[int64]{Segs: make([][]int64, segs), Gaps: true, N: segs * (arrivals - 1)}
	lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
	for i := range segs {
		seg := arena[i*arrivals : (i+1)*arrivals]
		t := int64(0)
		for k := range seg {
			if k > 0 {
				g := 15_000_000 + rng.Int64N(20_000_000)
				t += g
				lo, hi = min(lo, g), max(hi, g)
			}
			seg[k] = t
		}
		s.Segs[i] = seg
	}
	ks := []int{s.N / 2, s.N * 9 / 10, s.N * 95 / 100, s.N * 99 / 100}
	out := make([]int64, len(ks))
	b.SetBytes(int64(len(arena) * 8))
	b.ReportAllocs()
	for b.Loop() {
		Select(s, lo, hi, ks, out)
	}
}

// The bits of a level fit the counts in two thirds of each sharer's part
// of the level-1 data cache: 4096 counts of 8 bytes are 32 KiB, which
// fits in 2/3 of 48 KiB (32 KiB) and not in 2/3 of 32 KiB (21.3 KiB).
func TestBitsFor(t *testing.T) {
	for _, c := range []struct{ bytes, sharers, want int }{
		{48 << 10, 1, 12}, // AMD EPYC (Zen 4/5), one thread a core
		{32 << 10, 1, 11}, // 2048 counts, 16 KiB ≤ 21.3 KiB
		{48 << 10, 2, 11}, // 16 KiB ≤ 16 KiB
		{32 << 10, 2, 10}, // Intel Xeon, two hyperthreads: 8 KiB ≤ 10.7 KiB
		{64 << 10, 1, 12}, // never above maxBits
		{1 << 10, 4, 8},   // never below minBits
		{0, 0, 12},        // unknown: today's width
	} {
		if got := bitsFor(c.bytes, c.sharers); got != c.want {
			t.Errorf("bitsFor(%d, %d) = %d, want %d", c.bytes, c.sharers, got, c.want)
		}
	}
}

// Select gives the same ranks at every width of a level, flat, as gaps,
// on one core's part or shared among them.
func TestSelectEveryWidth(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	ints := make([]int64, 300_001)
	for i := 1; i < len(ints); i++ {
		ints[i] = ints[i-1] + 15_000_000 + rng.Int64N(20_000_000)
		if rng.IntN(200) == 0 {
			ints[i] += 300_000_000 // a stall
		}
	}
	gaps := Sample[int64]{Segs: [][]int64{ints[:100_000], ints[99_999:]}, Gaps: true, N: 300_000}
	all := gaps.AppendTo(nil)
	sorted := slices.Sorted(slices.Values(all))
	ks := []int{0, 1, 149_999, 270_000, 285_000, 297_000, 299_999}
	for bits := minBits; bits <= maxBits; bits++ {
		for _, s := range []Sample[int64]{gaps, Flat(all)} {
			out := make([]int64, len(ks))
			selectBits(s, slices.Min(all), slices.Max(all), ks, out, bits)
			for i, k := range ks {
				if out[i] != sorted[k] {
					t.Errorf("bits %d, gaps %v: rank %d is %d, want %d", bits, s.Gaps, k, out[i], sorted[k])
				}
			}
		}
	}
}
