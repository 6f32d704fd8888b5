package compare

import (
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
// Runs without a header are the same run when their records are.
func TestSweepSameRunWarned(t *testing.T) {
	start := time.Date(2026, 11, 30, 10, 0, 0, 123456789, time.UTC)
	with := func(name string, level float64, at time.Time) LevelRun {
		r := levelRun(level, 100*time.Millisecond, 10, nil)
		r.Name = name
		r.Run.Header = &llmmetrics.RunHeader{Start: at, Load: map[string]string{"loop": "closed", "prompt_salt": "00000000000000aa"}}
		return r
	}
	bare := func(name string, level float64, ttft time.Duration) LevelRun {
		r := levelRun(level, ttft, 10, nil)
		r.Name = name
		return r
	}
	runs := []LevelRun{
		with("a", 1, start), with("a-copy", 1, start), with("b", 1, start.Add(time.Nanosecond)),
		bare("x", 2, 100*time.Millisecond), bare("y", 2, 110*time.Millisecond), bare("x-copy", 2, 100*time.Millisecond),
	}
	sw, err := SweepRuns(runs, llmmetrics.Options{})
	require.NoError(t, err)
	assert.Equal(t, []string{
		"concurrency 1 runs 1 and 2 are the same run: identical headers (a and a-copy); a copy as a repeat fakes a spread of 0",
		"concurrency 2 runs 1 and 3 are the same run: identical records (x and x-copy); a copy as a repeat fakes a spread of 0",
	}, sw.Warnings)
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
	assert.Contains(t, d.Warnings, "A runs 1 and 2 are the same run: identical headers (r1.jsonl and r1copy.jsonl); a copy as a repeat fakes a spread of 0")
	for _, w := range d.Warnings {
		assert.NotContains(t, w, "B runs", "B's runs differ")
	}
}
