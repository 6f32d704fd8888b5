//go:build cgo

package sqltest

import (
	"testing"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/conformance"
)

// TestConformance runs the recipe on every case of the conformance kit,
// written as Parquet, with the case's options as the recipe's settings,
// and requires every figure the case gives: the counts exactly, the
// latencies within 1 ns, the rates within a relative 10⁻⁹, the absent
// ones absent (conformance.Agree). On each case it also compares the
// recipe's percentiles with DuckDB's quantile_disc and quantile_cont
// (checkQuantiles).
func TestConformance(t *testing.T) {
	db := openDB(t)
	dir := t.TempDir()
	quantiles := 0
	for _, c := range conformance.Cases() {
		t.Run(c.ID, func(t *testing.T) {
			recs, err := c.Records()
			if err != nil {
				t.Fatal(err)
			}
			opt, err := c.Options.LibraryOptions()
			if err != nil {
				t.Fatal(err)
			}
			path := writeParquet(t, dir, c.ID, &llmmetrics.Run{Records: recs})
			got := recipeFigures(t, db, path, opt)
			differ, missing := conformance.Compare(c.Expected, got)
			if len(differ)+len(missing) > 0 {
				t.Errorf("%d of %d figures differ or are missing:%s", len(differ)+len(missing), len(c.Expected), report(differ, missing))
			}
			quantiles += checkQuantiles(t, db, opt)
		})
	}
	t.Logf("%d percentiles compared with DuckDB's quantile functions", quantiles)
}
