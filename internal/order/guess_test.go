package order

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// smallGuesses makes levels of a thousand values or more guess, from
// samples of 65,536, for the test's time.
func smallGuesses(t *testing.T) {
	min, size := guessMin, sampleSize
	guessMin, sampleSize = 1000, 1<<16
	t.Cleanup(func() { guessMin, sampleSize = min, size })
}

// A guess from a systematic sample finds the buckets of the ranks of
// values in no pattern with the sampling, and its one pass gives the
// ranks sorting gives: flat and as gaps, on one part and on several; and
// float keys, guessed or not, are selected as exactly.
func TestGuess(t *testing.T) {
	smallGuesses(t)
	rng := rand.New(rand.NewPCG(9, 9))
	const n = 1_000_000
	ints := make([]int64, n+1)
	floats := make([]float64, n)
	for i := 1; i < len(ints); i++ {
		g := 15_000_000 + rng.Int64N(20_000_000)
		if rng.IntN(100) == 0 {
			g += rng.Int64N(300_000_000)
		}
		ints[i] = ints[i-1] + g
		floats[i-1] = float64(g) * (rng.Float64() - 0.2)
	}
	gaps := Sample[int64]{Segs: [][]int64{ints[:350_000], ints[349_999:]}, Gaps: true, N: n}
	ks := []int{0, 1, n / 2, n * 9 / 10, n * 99 / 100, n - 1}
	for _, s := range []Sample[int64]{gaps, Flat(gaps.AppendTo(nil)), Floats([][]float64{floats})} {
		want := slices.Sorted(slices.Values(s.AppendTo(nil)))
		for _, parts := range []int{1, 2, 3} {
			l := newLevel(s, want[0], want[n-1], maxBits)
			l.parts = s.split(parts)
			out := make([]int64, len(ks))
			switch {
			case l.guess(ks, out):
			case s.Float: // keys spread over their exponents: any way will do
				if l.partCounts == nil {
					l.countAll()
				}
				l.copyWanted(ks, out)
			default:
				t.Fatalf("gaps %v, %d parts: the guess missed", s.Gaps, parts)
			}
			for i, k := range ks {
				if out[i] != want[k] {
					t.Errorf("gaps %v float %v, %d parts: rank %d is %d, want %d", s.Gaps, s.Float, parts, k, out[i], want[k])
				}
			}
		}
	}
}

// Values that repeat a pattern in step with the sampling mislead the
// guess: every step-th value (the ones sampled) is spread over [0, 10⁶),
// the others over [0, 10⁵), so the sample puts the median near 5·10⁵ and
// the whole near 5·10⁴. The guess misses, and the counts its pass took
// finish the selection through a second pass, exactly.
func TestGuessMissed(t *testing.T) {
	smallGuesses(t)
	rng := rand.New(rand.NewPCG(10, 10))
	const n = 400_000
	step := n / sampleSize
	xs := make([]int64, n)
	for i := range xs {
		xs[i] = rng.Int64N(100_000)
		if i%step == 0 {
			xs[i] = rng.Int64N(1_000_000)
		}
	}
	want := slices.Sorted(slices.Values(xs))
	ks := []int{n / 2, n * 9 / 10}
	for _, parts := range []int{1, 2} {
		l := newLevel(Flat(xs), want[0], want[n-1], 10)
		l.parts = Flat(xs).split(parts)
		out := make([]int64, len(ks))
		if l.guess(ks, out) {
			t.Fatalf("%d parts: the guess did not miss", parts)
		}
		if l.partCounts == nil {
			t.Fatalf("%d parts: a missed guess left no counts", parts)
		}
		l.copyWanted(ks, out)
		for i, k := range ks {
			if out[i] != want[k] {
				t.Errorf("%d parts: rank %d is %d, want %d", parts, k, out[i], want[k])
			}
		}
	}
	// Through Select, which takes either way.
	out := make([]int64, len(ks))
	Select(Flat(xs), want[0], want[n-1], ks, out)
	if out[0] != want[ks[0]] || out[1] != want[ks[1]] {
		t.Errorf("Select: %v, want %d, %d", out, want[ks[0]], want[ks[1]])
	}
}

// A guess whose buckets would hold more than a sixteenth of the sample is
// not made: values in a handful of buckets are counted first.
func TestGuessTooWide(t *testing.T) {
	smallGuesses(t)
	xs := make([]int64, 10_000)
	for i := range xs {
		xs[i] = int64(i % 3 * 1000)
	}
	l := newLevel(Flat(xs), 0, 2000, 10)
	out := make([]int64, 1)
	if l.guess([]int{5000}, out) || l.partCounts != nil {
		t.Fatalf("a guess of the middle of three values was made")
	}
}
