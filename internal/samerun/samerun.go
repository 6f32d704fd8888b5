// Package samerun tells whether two runs are one run given twice: a copy
// of a file, a copy whose header was edited, a file and its conversion to
// another format. Merged, a run twice counts every request twice; as two
// repeats, it fakes a spread of 0.
package samerun

import (
	"reflect"
	"time"

	"github.com/llmmetrics/llmmetrics"
)

// Why says why runs a and b are one run, or "" when nothing says so: their
// headers carry one run id, or are identical (start to the nanosecond,
// load and all), or their measured records are (see Records), whatever
// their headers say: two runs never share their records' times to the
// nanosecond.
func Why(a, b *llmmetrics.Run) string {
	if a == nil || b == nil {
		return ""
	}
	ha, hb := a.Header, b.Header
	if ha != nil && hb != nil && ha.ID != "" && ha.ID == hb.ID {
		return "their run headers carry the same run id " + ha.ID
	}
	if ha != nil && hb != nil && !ha.Start.IsZero() && reflect.DeepEqual(*ha, *hb) {
		return "their run headers are identical"
	}
	if Records(a.Records, b.Records) {
		return "their measured records are identical"
	}
	return ""
}

// Records reports whether two runs' measured records (warm-up and
// preflight ones left out, as a conversion with --measured leaves them)
// are one list: at least one, each with the same id, status, send, TTFT,
// E2E and token counts, the fields every format keeps to the nanosecond.
// Two runs differ in these from their first record.
func Records(a, b []llmmetrics.Record) bool {
	i, j, n := 0, 0, 0
	for {
		for i < len(a) && (a[i].Warmup || a[i].Preflight) {
			i++
		}
		for j < len(b) && (b[j].Warmup || b[j].Preflight) {
			j++
		}
		if i == len(a) || j == len(b) {
			return i == len(a) && j == len(b) && n > 0
		}
		if !same(&a[i], &b[j]) {
			return false
		}
		i, j, n = i+1, j+1, n+1
	}
}

// same reports whether two records agree in the fields every format keeps:
// a CSV row keeps a record's TTFT and E2E, not its chunks.
func same(x, y *llmmetrics.Record) bool {
	tx, ex := times(x)
	ty, ey := times(y)
	return x.ID == y.ID && x.Status == y.Status && x.Sent == y.Sent && tx == ty && ex == ey &&
		x.CompletionTokens == y.CompletionTokens && x.PromptTokens == y.PromptTokens
}

// times returns a record's TTFT and E2E, each 0 where it has none.
func times(r *llmmetrics.Record) (ttft, e2e time.Duration) {
	ttft, _ = r.TTFT()
	e2e, _ = r.E2E()
	return ttft, e2e
}

// Prefix reports whether the measured records of two runs' first parts
// (a batch of each, read where a run is too large to hold) agree as far
// as the shorter goes, at least one: Records for runs read in part.
func Prefix(a, b []llmmetrics.Record) bool {
	a, b = measured(a), measured(b)
	n := min(len(a), len(b))
	if n == 0 {
		return false
	}
	return Records(a[:n], b[:n])
}

// measured returns the records but warm-up and preflight ones.
func measured(recs []llmmetrics.Record) []llmmetrics.Record {
	var out []llmmetrics.Record
	for _, r := range recs {
		if !r.Warmup && !r.Preflight {
			out = append(out, r)
		}
	}
	return out
}
