package outofcore_test

import (
	"testing"
	"time"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/internal/budget"
	"github.com/llmmetrics/llmmetrics/internal/outofcore"
)

// The heap a selection holds stays within its budget, far below the
// sample: 2·10⁶ gaps (16 MB) in 256 KiB, and the figures are Describe's.
func TestQuantilesBudget(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 2·10⁶ values several times")
	}
	const n, limit = 2_000_000, 256 << 10
	units := []uint64{50_000_000, 90_000_000, 95_000_000, 99_000_000}
	var d llmmetrics.Distribution
	var st outofcore.Stats
	var err error
	cost := budget.Measure(func() { d, st, err = describe(gaps(n), limit, llmmetrics.NearestRank, units) })
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d passes, %d bytes held by count, %v", st.Passes, st.Held, cost)
	if st.Held > limit {
		t.Errorf("held %d bytes by count, budget %d", st.Held, limit)
	}
	// Nothing grows with the sample: each pass allocates at most the
	// budget, and the rest (ranks, cells, results) is under 16 KiB.
	if most := uint64(st.Passes*limit + 16<<10); cost.Allocated > most {
		t.Errorf("allocated %d bytes in %d passes, want at most %d", cost.Allocated, st.Passes, most)
	}
	// The peak is sampled at collections under GOGC=10: allow a tenth,
	// and 64 KiB for the runtime's own.
	if most := uint64(limit + limit/10 + 64<<10); cost.Peak > most {
		t.Errorf("peak %d bytes, want at most %d", cost.Peak, most)
	}
	var xs []time.Duration
	gaps(n)(func(seg []time.Duration) bool { xs = append(xs, seg...); return true })
	same(t, d, xs, llmmetrics.NearestRank, units)
}
