package compare

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmmetrics/llmmetrics"
)

// A level's repeat that is a copy of another (its header identical, start
// to the nanosecond) is warned about, naming both, since copies fake a
// spread of 0; runs a nanosecond apart are not, nor runs with a header
// but no start (identical records there are a test's, not a copy's).
// Runs of a level that are one run given twice are warned about: a copy
// of a file (identical headers, or records without headers), a copy whose
// header was edited (a host renamed: identical records), and a file and
// its conversion whose header says one run id; a run whose header starts
// a nanosecond later, or whose records differ, is another run.
func TestSweepSameRunWarned(t *testing.T) {
	start := time.Date(2026, 11, 30, 10, 0, 0, 123456789, time.UTC)
	with := func(name string, level float64, at time.Time) LevelRun {
		r := levelRun(level, 100*time.Millisecond, 10, nil)
		r.Name = name
		r.Run.Header = &llmmetrics.RunHeader{Start: at, Load: map[string]string{"loop": "closed", "prompt_salt": "00000000000000aa"}}
		return r
	}
	copyOf := func(r LevelRun, name string, edit func(h *llmmetrics.RunHeader)) LevelRun {
		c := *r.Run
		c.Records = slices.Clone(c.Records)
		if c.Header != nil {
			h := *c.Header
			if edit != nil {
				edit(&h)
			}
			c.Header = &h
		}
		r.Run, r.Name = &c, name
		return r
	}
	a, x := with("a", 1, start), levelRun(2, 100*time.Millisecond, 10, nil)
	x.Name = "x"
	p := with("p", 3, start)
	p.Run.Header.ID = "RUNP"
	conv := with("p.parquet", 3, start) // other records (its own levelRun), one run id
	conv.Run.Header.ID = "RUNP"
	// x as a CSV file keeps it: no header, no chunks, no warm-up record.
	csv := copyOf(x, "x.csv", nil)
	csv.Run.Records = nil
	for _, r := range x.Run.Records {
		if !r.Warmup {
			r.Chunks = nil
			csv.Run.Records = append(csv.Run.Records, r)
		}
	}
	x.Run.Records = append([]llmmetrics.Record{{ID: "w", Warmup: true, FirstText: time.Millisecond, LastText: time.Millisecond, CompletionTokens: 1}}, x.Run.Records...)
	// A copy whose header's run id was changed: its records say it is
	// the run (they were taken for two runs when the ids decided).
	q := with("q", 4, start)
	q.Run.Header.ID = "RUNQ"
	q2 := copyOf(q, "q2", func(h *llmmetrics.RunHeader) { h.ID = "RUNQ2" })
	runs := []LevelRun{
		a, copyOf(a, "a-copy", nil), with("b", 1, start.Add(time.Nanosecond)), copyOf(a, "a-host", func(h *llmmetrics.RunHeader) { h.Host = "other" }),
		x, levelRun(2, 110*time.Millisecond, 10, nil), copyOf(x, "x-copy", nil), csv,
		p, conv, q, q2,
	}
	sw, err := SweepRuns(runs, llmmetrics.Options{})
	require.NoError(t, err)
	var same []string
	for _, w := range sw.Warnings {
		if strings.Contains(w, "same run") {
			same = append(same, w)
		}
	}
	assert.Equal(t, []string{
		"concurrency 1 runs 1 and 2 are the same run: their run headers are identical (a and a-copy); a copy as a repeat fakes a spread of 0",
		"concurrency 1 runs 1 and 4 are the same run: their measured records are identical (a and a-host); a copy as a repeat fakes a spread of 0",
		"concurrency 2 runs 1 and 3 are the same run: their measured records are identical (x and x-copy); a copy as a repeat fakes a spread of 0",
		"concurrency 2 runs 1 and 4 are the same run: their measured records are identical (x and x.csv); a copy as a repeat fakes a spread of 0",
		"concurrency 3 runs 1 and 2 are the same run: their run headers carry the same run id RUNP (p and p.parquet); a copy as a repeat fakes a spread of 0",
		"concurrency 4 runs 1 and 2 are the same run: their measured records are identical (q and q2); a copy as a repeat fakes a spread of 0",
	}, same)
}

// A diff of a run against itself (a file and its copy) says that the two
// sides are one run: every row is "~" by construction.
func TestDiffSidesSameRun(t *testing.T) {
	r := levelRun(1, 100*time.Millisecond, 10, nil).Run
	r.Header = &llmmetrics.RunHeader{Start: time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC), Host: "h"}
	c := *r
	h := *r.Header
	h.Host = "edited"
	c.Header = &h
	d, err := DiffRuns([]*llmmetrics.Run{r}, []*llmmetrics.Run{&c}, DiffOptions{NamesA: []string{"a.jsonl"}, NamesB: []string{"acopy.jsonl"}})
	require.NoError(t, err)
	assert.Contains(t, d.Warnings, "A and B are the same run: their measured records are identical (a.jsonl and acopy.jsonl); every row compares the run with itself")
	var table strings.Builder
	require.NoError(t, d.WriteTable(&table))
	assert.Contains(t, table.String(), "A and B are the same run")
	// Several runs a side: a copy on the other side is named by its
	// numbers (it was not seen).
	two := levelRun(1, 110*time.Millisecond, 10, nil).Run
	many, err := DiffRuns([]*llmmetrics.Run{two, r}, []*llmmetrics.Run{levelRun(1, 120*time.Millisecond, 10, nil).Run, &c}, DiffOptions{})
	require.NoError(t, err)
	assert.Contains(t, many.Warnings, "A run 2 and B run 2 are the same run: their measured records are identical (run 2 and run 2); the run is compared with itself")
	other, err := DiffRuns([]*llmmetrics.Run{r}, []*llmmetrics.Run{levelRun(1, 100*time.Millisecond, 10, nil).Run}, DiffOptions{})
	require.NoError(t, err)
	assert.NotContains(t, fmt.Sprint(other.Warnings), "same run")
}

// A side of a diff with a run given twice under two names is warned
// about: "A runs 1 and 2 are the same run".
func TestDiffSameRunWarned(t *testing.T) {
	start := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	run := func(at time.Time) *llmmetrics.Run {
		r := levelRun(1, 100*time.Millisecond, 10, nil).Run
		r.Header = &llmmetrics.RunHeader{Start: at}
		return r
	}
	a := []*llmmetrics.Run{run(start), run(start), run(start.Add(time.Second))}
	b := []*llmmetrics.Run{run(start.Add(time.Hour)), run(start.Add(2 * time.Hour)), run(start.Add(3 * time.Hour))}
	d, err := DiffRuns(a, b, DiffOptions{NamesA: []string{"r1.jsonl", "r1copy.jsonl", "r2.jsonl"}})
	require.NoError(t, err)
	assert.Contains(t, d.Warnings, "A runs 1 and 2 are the same run: their run headers are identical (r1.jsonl and r1copy.jsonl); a copy as a repeat fakes a spread of 0")
	for _, w := range d.Warnings {
		assert.NotContains(t, w, "B runs", "B's runs differ")
	}
}
