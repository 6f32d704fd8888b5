package compare

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmmetrics/llmmetrics"
)

// Three repeats of concurrency 4, one of which asked for 1024 prompt
// tokens and another for another model, are warned about once for each
// difference, naming the runs; level 1's three agreeing repeats and runs
// without a header are not.
func TestSweepWorkloadDiffers(t *testing.T) {
	with := func(name string, level float64, model, prompt string) LevelRun {
		r := levelRun(level, 100*time.Millisecond, 10, nil)
		r.Name = name
		if model != "" {
			r.Run.Header = &llmmetrics.RunHeader{Model: model, Load: map[string]string{"loop": "closed", "prompt_tokens": prompt}}
		}
		return r
	}
	runs := []LevelRun{
		with("a", 4, "m", "512"), with("b", 4, "m", "1024"), with("c", 4, "other", "512"), with("d", 4, "", ""),
		with("e", 1, "m", "512"), with("f", 1, "m", "512"), with("g", 1, "m", "512"),
	}
	sw, err := SweepRuns(runs, llmmetrics.Options{})
	require.NoError(t, err)
	assert.Equal(t, []string{
		"concurrency 4: its runs differ in the model (m in a, b; other in c): they are not repeats of one workload, and their spread is not noise",
		"concurrency 4: its runs differ in the load's prompt_tokens (512 in a, c; 1024 in b): they are not repeats of one workload, and their spread is not noise",
	}, sw.Warnings)
}
