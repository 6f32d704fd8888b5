//go:build cgo

package sqltest

import (
	"testing"
	"time"

	"github.com/llmmetrics/llmmetrics"
)

// TestOneBodyAndUnjudged: a reply of one body without usage ("b", its
// text at 300 ms) is unstreamed, out of TTFT, as the library has it; and
// against ttft=1s,tpot=50ms, the counted stream "a" (10 tokens over
// 100–200 ms: 11 ms a token) is good, "b" too (its text at once: a TPOT
// of 0 whatever its count), and "c" (no usage, streamed) meets TTFT with
// an unknown TPOT: unjudged, not good. Attainment 2/3, a lower bound, as
// Summarize gives it.
func TestOneBodyAndUnjudged(t *testing.T) {
	db := openDB(t)
	ms := time.Millisecond
	recs := []llmmetrics.Record{
		okRecord("a", 0, 10, 5),
		{ID: "b", Chunks: []time.Duration{300 * ms}, NoUsage: true, Client: &llmmetrics.ClientSide{OneBody: true}},
		{ID: "c", Chunks: []time.Duration{100 * ms, 150 * ms}, NoUsage: true},
	}
	opt := llmmetrics.Options{SLO: &llmmetrics.SLO{TTFT: time.Second, TPOT: 50 * ms}}
	s, err := llmmetrics.Summarize(recs, opt)
	if err != nil {
		t.Fatal(err)
	}
	path := writeParquet(t, t.TempDir(), "onebody", &llmmetrics.Run{Records: recs})
	figs := recipeFigures(t, db, path, opt)
	var unstreamed, ttftN, good, unjudged int
	var lower bool
	if err := db.db.QueryRow(`SELECT unstreamed FROM lm_accounting`).Scan(&unstreamed); err != nil {
		t.Fatal(err)
	}
	if err := db.db.QueryRow(`SELECT count(*) FROM lm_samples WHERE metric = 'ttft'`).Scan(&ttftN); err != nil {
		t.Fatal(err)
	}
	if err := db.db.QueryRow(`SELECT good, unjudged, attainment_lower_bound FROM lm_goodput`).Scan(&good, &unjudged, &lower); err != nil {
		t.Fatal(err)
	}
	if unstreamed != s.Requests.Unstreamed || ttftN != s.TTFT.N || unstreamed != 1 || ttftN != 2 {
		t.Errorf("unstreamed %d, TTFT n %d; the library's %d, %d; want 1, 2", unstreamed, ttftN, s.Requests.Unstreamed, s.TTFT.N)
	}
	if good != s.Goodput.Good || unjudged != s.Goodput.Unjudged || !lower || good != 2 || unjudged != 1 {
		t.Errorf("good %d, unjudged %d, lower bound %v; the library's %d, %d; want 2, 1, true", good, unjudged, lower, s.Goodput.Good, s.Goodput.Unjudged)
	}
	t.Logf("figures: %v", figs["goodput.attainment"])
}
