//go:build cgo

package sqltest

import (
	"os"
	"testing"

	"github.com/llmmetrics/llmmetrics"
)

// BenchmarkRecipeFile runs the SQL recipe in DuckDB on the Parquet file
// that LLMMETRICS_RECIPE_FILE names, for docs/performance.md's side by
// side with report on the same file:
//
//	LLMMETRICS_RECIPE_FILE=run.parquet go test -run '^$' -bench RecipeFile -benchtime 1x ./sqltest
func BenchmarkRecipeFile(b *testing.B) {
	path := os.Getenv("LLMMETRICS_RECIPE_FILE")
	if path == "" {
		b.Skip("LLMMETRICS_RECIPE_FILE names no run's Parquet file")
	}
	for b.Loop() {
		d := openDB(b)
		figs := recipeFigures(b, d, path, llmmetrics.Options{})
		if len(figs) == 0 {
			b.Fatal("the recipe gave no figure")
		}
		b.ReportMetric(float64(len(figs)), "figures")
	}
}
