package llmmetrics_test

import (
	"os"
	"testing"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/internal/budget"
	"github.com/llmmetrics/llmmetrics/internal/hugepage"
)

func TestZZProbe(t *testing.T) {
	f, err := os.Open("/tmp/c44.csv")
	if err != nil {
		t.Skip()
	}
	defer f.Close()
	c := budget.Measure(func() {
		_, _, err := llmmetrics.ReadOptions{}.SummarizeFailed(f, llmmetrics.Options{}, func(llmmetrics.Record) {})
		if err != nil {
			t.Fatal(err)
		}
	})
	t.Logf("%v; mapped peak %d", c, hugepage.Peak())
}
