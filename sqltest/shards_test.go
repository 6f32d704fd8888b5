//go:build cgo

package sqltest

import (
	"database/sql"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/conformance"
)

// shardRuns are two shards of one load whose starts are 3 s apart, each
// sent_ns from its own start: shard 1 sends at 0 and 500 ms, shard 2 at
// 0 and 200 ms of its clock (3000 and 3200 ms of shard 1's). Every
// request's text comes 100 and 200 ms after its send, 10 tokens.
func shardRuns(start time.Time) []*llmmetrics.Run {
	ms := time.Millisecond
	shard := func(i int, at time.Time, sends ...time.Duration) *llmmetrics.Run {
		r := &llmmetrics.Run{Header: &llmmetrics.RunHeader{Tool: "test", Start: at}}
		for k, s := range sends {
			rec := okRecord(string(rune('a'+k)), s, 10, 0)
			rec.ID = "s" + string(rune('0'+i)) + "-" + rec.ID // run --shard prefixes the ids
			r.Records = append(r.Records, rec)
		}
		return r
	}
	return []*llmmetrics.Run{
		shard(1, start, 0, 500*ms),
		shard(2, start.Add(3*time.Second), 0, 200*ms),
	}
}

// TestShardsGlobbed: the recipe over a glob of shards whose starts differ
// gives the figures of report --merge (llmmetrics.MergeRuns), which moves
// each shard onto the earliest start's clock. With the first request
// warm-up, the window runs from shard 1's second send (500 ms) to the
// last text, shard 2's at 3200 + 200 = 3400 ms: 2.9 s; 3 ok requests of
// 10 tokens: 3/2.9 requests/s and 30/2.9 tokens/s. On sent_ns alone
// the window would end at 500 + 200 = 700 ms.
func TestShardsGlobbed(t *testing.T) {
	db := openDB(t)
	dir := t.TempDir()
	runs := shardRuns(time.Date(2026, 12, 1, 15, 0, 0, 0, time.UTC))
	for i, r := range runs {
		writeParquet(t, dir, "shard-"+string(rune('1'+i)), r)
	}
	opt := llmmetrics.Options{Warmup: &llmmetrics.WarmupSpec{Requests: 1}, SLO: &llmmetrics.SLO{TTFT: time.Second}}
	got := recipeFigures(t, db, filepath.Join(dir, "shard-*.parquet"), opt)

	merged, err := llmmetrics.MergeRuns(runs)
	if err != nil {
		t.Fatal(err)
	}
	s, err := merged.Summarize(opt)
	if err != nil {
		t.Fatal(err)
	}
	want := conformance.Figures{}
	for k, v := range reportFigures(s, merged.Records, llmmetrics.DefaultPercentiles) {
		if !strings.HasPrefix(k, "request.") { // merge prefixes the ids again
			want[k] = v
		}
	}
	want["requests_per_s"] = conformance.Num(3 / 2.9)
	want["output_tokens_per_s"] = conformance.Num(30 / 2.9)
	want["requests.warmup"] = conformance.Num(1)
	differ, missing := conformance.Compare(want, got)
	if len(differ)+len(missing) > 0 {
		t.Errorf("%d of %d figures differ from report --merge's:%s", len(differ)+len(missing), len(want), report(differ, missing))
	}
	var window sql.NullInt64
	var clock string
	if err := db.db.QueryRow("SELECT window_ns, clock FROM lm_window").Scan(&window, &clock); err != nil {
		t.Fatal(err)
	}
	if window.Int64 != 2900e6 || clock != "sent_unix_ns" {
		t.Errorf("lm_window: %v ns on clock %s, want 2.9 s on sent_unix_ns", window, clock)
	}
}

// TestShardsMixedClocks: when some files carry no start (no sent_unix_ns)
// and others do, the files are not on one clock: the derived window is
// NULL, not a figure on the wrong clock.
func TestShardsMixedClocks(t *testing.T) {
	db := openDB(t)
	dir := t.TempDir()
	runs := shardRuns(time.Date(2026, 12, 1, 15, 0, 0, 0, time.UTC))
	runs[1].Header = nil
	for i, r := range runs {
		writeParquet(t, dir, "mixed-"+string(rune('1'+i)), r)
	}
	got := recipeFigures(t, db, filepath.Join(dir, "mixed-*.parquet"), llmmetrics.Options{})
	if v := got["requests_per_s"]; v != conformance.Absent {
		t.Errorf("requests_per_s = %v over files on two clocks, want absent", v)
	}
	var clock string
	if err := db.db.QueryRow("SELECT clock FROM lm_window").Scan(&clock); err != nil {
		t.Fatal(err)
	}
	if clock != "mixed" {
		t.Errorf("clock %q, want mixed", clock)
	}
}
