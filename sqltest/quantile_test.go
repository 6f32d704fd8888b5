//go:build cgo

package sqltest

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/llmmetrics/llmmetrics"
)

// checkQuantiles checks the recipe's dialect note on DuckDB, with the
// views of the recipe in db: its aggregates quantile_disc and
// quantile_cont give the recipe's nearest rank and linear percentiles
// (lm_percentile, computed with window functions in integers) on each
// sample, at each percentile of opt: quantile_disc exactly,
// quantile_cont within 1 ns. It returns how many it compared.
func checkQuantiles(t *testing.T, d *duck, opt llmmetrics.Options) int {
	t.Helper()
	if len(opt.Percentiles) == 0 {
		return 0
	}
	fn := "quantile_disc"
	if opt.Method == llmmetrics.Linear {
		fn = "quantile_cont"
	}
	recipe := map[string]float64{} // by metric and percentile
	rows, err := d.db.Query("SELECT metric, name, v FROM lm_percentile")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var metric, name string
		var v float64
		if err := rows.Scan(&metric, &name, &v); err != nil {
			t.Fatal(err)
		}
		recipe[metric+" "+name] = v
	}
	rows.Close()

	fractions := make([]string, len(opt.Percentiles))
	for i, p := range opt.Percentiles {
		fractions[i] = fraction(p)
	}
	q := fmt.Sprintf("SELECT metric, CAST(%s(v, [%s]) AS VARCHAR) FROM lm_samples GROUP BY metric", fn, strings.Join(fractions, ", "))
	rows, err = d.db.Query(q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	compared, metrics := 0, 0
	for rows.Next() {
		var metric, list string
		if err := rows.Scan(&metric, &list); err != nil {
			t.Fatal(err)
		}
		metrics++
		values := strings.Split(strings.Trim(list, "[]"), ", ")
		if len(values) != len(opt.Percentiles) {
			t.Fatalf("%s of %s: %s", fn, metric, list)
		}
		for i, p := range opt.Percentiles {
			duck, err := strconv.ParseFloat(values[i], 64)
			if err != nil {
				t.Fatalf("%s of %s: %s: %v", fn, metric, list, err)
			}
			got, ok := recipe[metric+" "+p.Key()]
			switch {
			case !ok:
				t.Errorf("%s %s: the recipe gives none, %s %v ns", metric, p.Key(), fn, duck)
			case fn == "quantile_disc" && got != duck,
				fn == "quantile_cont" && math.Abs(got-duck) > 1:
				t.Errorf("%s %s: the recipe gives %v ns, %s %v ns", metric, p.Key(), got, fn, duck)
			default:
				compared++
			}
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if want := len(recipe) / len(opt.Percentiles); metrics != want {
		t.Errorf("%s gave %d samples, the recipe %d", fn, metrics, want)
	}
	return compared
}

// fraction writes p/100 as a SQL decimal literal, exactly: 99.9 is 0.999.
func fraction(p llmmetrics.Percentile) string {
	units := int64(math.Round(p.Float() * 1e6)) // p in millionths of a percent
	return fmt.Sprintf("%d.%08d", units/100_000_000, units%100_000_000)
}
