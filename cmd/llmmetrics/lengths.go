package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
)

// A lengthSpec is a token length with an optional spread: "512", or
// "512±25%" (also "512+-25%"): lengths drawn uniformly from 384 to 640, as
// vLLM's random dataset draws them, from the run's seed.
type lengthSpec struct {
	n      int
	spread float64 // a fraction of n, in [0, 1]
}

func (l *lengthSpec) String() string {
	if l == nil || l.n == 0 && l.spread == 0 {
		return "0"
	}
	if l.spread == 0 {
		return strconv.Itoa(l.n)
	}
	return fmt.Sprintf("%d±%s%%", l.n, strconv.FormatFloat(100*l.spread, 'g', -1, 64))
}

func (l *lengthSpec) Set(v string) error {
	base, spread, ok := strings.Cut(v, "±")
	if !ok {
		base, spread, ok = strings.Cut(v, "+-")
	}
	n, err := strconv.Atoi(strings.TrimSpace(base))
	switch {
	case err != nil && !ok:
		return err // a count alone: told as any whole number's (see numberKind.why)
	case err != nil:
		return flagReason(fmt.Sprintf("the count %q: want a whole number, and a spread such as 512±25%%", base))
	case ok && n <= 0:
		return flagReason(fmt.Sprintf("a spread needs a count above zero, not %d", n))
	}
	l.n, l.spread = n, 0
	if !ok {
		return nil
	}
	pct, isPct := strings.CutSuffix(strings.TrimSpace(spread), "%")
	f, err := strconv.ParseFloat(pct, 64)
	if !isPct || err != nil || !(f > 0 && f <= 100) {
		return flagReason(fmt.Sprintf("the spread %q: want a percentage in (0, 100], such as 25%%", spread))
	}
	l.spread = f / 100
	return nil
}

// Get returns the count, for the check of numeric flags.
func (l *lengthSpec) Get() any { return l.n }

// draw returns k lengths, uniform over the whole numbers from n(1−spread)
// to n(1+spread) (at least 1), from seed and stream.
func (l lengthSpec) draw(k int, seed, stream uint64) []int {
	lo := max(1, int(math.Round(float64(l.n)*(1-l.spread))))
	hi := max(lo, int(math.Round(float64(l.n)*(1+l.spread))))
	rng := rand.New(rand.NewPCG(seed, stream))
	out := make([]int, k)
	for i := range out {
		out[i] = lo + rng.IntN(hi-lo+1)
	}
	return out
}
