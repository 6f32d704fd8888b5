// Package samerun tells whether two runs are one run given twice: a copy
// of a file, a copy whose header was edited, a file and its conversion to
// another format. Merged, a run twice counts every request twice; as two
// repeats, it fakes a spread of 0.
package samerun

import (
	"reflect"

	"github.com/llmmetrics/llmmetrics"
)

// Why says why runs a and b are one run, or "" when nothing says so. Run
// ids decide when both headers carry one: equal, one run; different, two
// runs, whatever their records. Otherwise the runs are one when their
// headers are identical (start to the nanosecond, load and all) or when
// their measured records are (see Records).
func Why(a, b *llmmetrics.Run) string {
	if a == nil || b == nil {
		return ""
	}
	ha, hb := a.Header, b.Header
	if ha != nil && hb != nil && ha.ID != "" && hb.ID != "" {
		if ha.ID == hb.ID {
			return "their run headers carry the same run id " + ha.ID
		}
		return ""
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
// are one list: at least one, each with the same id, status, send, first
// and last text and token counts, the fields every format keeps to the
// nanosecond. Two runs differ in these from their first record.
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

// same reports whether two records agree in the fields every format keeps.
func same(x, y *llmmetrics.Record) bool {
	return x.ID == y.ID && x.Status == y.Status && x.Sent == y.Sent && x.FirstText == y.FirstText &&
		x.LastText == y.LastText && x.CompletionTokens == y.CompletionTokens && x.PromptTokens == y.PromptTokens
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
