//go:build cgo

package sqltest

import (
	"database/sql"
	"testing"
	"time"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/conformance"
)

// okRecord is an ok request sent at sent whose two chunks came 100 and
// 200 ms later, with n output tokens, or no count when n is 0.
func okRecord(id string, sent time.Duration, n, prompt int) llmmetrics.Record {
	ms := time.Millisecond
	return llmmetrics.Record{ID: id, Sent: sent, FirstText: 100 * ms, LastText: 200 * ms,
		Chunks: []time.Duration{100 * ms, 200 * ms}, CompletionTokens: n, NoUsage: n == 0, PromptTokens: prompt}
}

// TestRatesOfUnknownCounts: an output rate built on no usable count is
// NULL, not 0, and one that leaves some requests out is a lower bound,
// as report --json says (output_tokens_lower_bound, output_tokens_requests).
func TestRatesOfUnknownCounts(t *testing.T) {
	db := openDB(t)
	dir := t.TempDir()
	opt := llmmetrics.Options{Window: time.Second}
	for _, c := range []struct {
		name        string
		recs        []llmmetrics.Record
		output      sql.NullFloat64
		lower       bool
		counted     int64
		prompt      sql.NullFloat64
		promptLower bool
	}{
		// a and b: no usage: no output rate at all (the library's Absent)
		{"none counted", []llmmetrics.Record{okRecord("a", 0, 0, 0), okRecord("b", 0, 0, 0)},
			sql.NullFloat64{}, false, 0, sql.NullFloat64{}, false},
		// a: 10 tokens, b: unknown; 10 tokens / 1 s = 10, a lower bound;
		// prompt 50 of a only: 50 / 1 s, a lower bound
		{"some counted", []llmmetrics.Record{okRecord("a", 0, 10, 50), okRecord("b", 0, 0, 0)},
			sql.NullFloat64{Float64: 10, Valid: true}, true, 1, sql.NullFloat64{Float64: 50, Valid: true}, true},
		// both counted: 10 + 20 tokens / 1 s = 30, not a bound
		{"all counted", []llmmetrics.Record{okRecord("a", 0, 10, 5), okRecord("b", 0, 20, 5)},
			sql.NullFloat64{Float64: 30, Valid: true}, false, 2, sql.NullFloat64{Float64: 10, Valid: true}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := writeParquet(t, dir, "rates", &llmmetrics.Run{Records: c.recs})
			figs := recipeFigures(t, db, path, opt)
			if got, want := figs["output_tokens_per_s"], num(c.output); got != want {
				t.Errorf("lm_figures output_tokens_per_s = %v, want %v", got, want)
			}
			var output, prompt sql.NullFloat64
			var lower, promptLower bool
			var counted int64
			err := db.db.QueryRow(`SELECT output_tokens_per_s, output_tokens_lower_bound, output_tokens_requests,
				prompt_tokens_per_s, prompt_tokens_lower_bound FROM lm_rates`).Scan(&output, &lower, &counted, &prompt, &promptLower)
			if err != nil {
				t.Fatal(err)
			}
			if output != c.output || lower != c.lower || counted != c.counted {
				t.Errorf("output: %v, lower bound %v, of %d requests; want %v, %v, %d", output, lower, counted, c.output, c.lower, c.counted)
			}
			if prompt != c.prompt || promptLower != c.promptLower {
				t.Errorf("prompt: %v, lower bound %v; want %v, %v", prompt, promptLower, c.prompt, c.promptLower)
			}
		})
	}
}

func num(v sql.NullFloat64) conformance.Value {
	if !v.Valid {
		return conformance.Absent
	}
	return conformance.Num(v.Float64)
}
