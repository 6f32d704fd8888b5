package compare

import (
	"bytes"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmmetrics/llmmetrics"
)

// A figure some run lacks is not compared, and the line that says so
// names the runs that lack it, with each reason once.
func TestDiffNamesRunsWithoutFigure(t *testing.T) {
	timed := func() *llmmetrics.Run { return levelRun(1, 100*time.Millisecond, 10, nil).Run }
	untimed := func() *llmmetrics.Run {
		r := timed()
		r.NoSendTimes = true
		return r
	}
	// A's one run has send times; B's first and third do not.
	d, err := DiffRuns([]*llmmetrics.Run{timed()}, []*llmmetrics.Run{untimed(), timed(), untimed()}, DiffOptions{})
	require.NoError(t, err)
	var out bytes.Buffer
	require.NoError(t, d.WriteTable(&out))
	assert.Contains(t, out.String(), "not compared: requests_per_s: B runs 1, 3 have no throughput window: ")
	assert.NotContains(t, out.String(), "A run 1 has no throughput")

	// Both sides without send times: every run is named.
	d, err = DiffRuns([]*llmmetrics.Run{untimed()}, []*llmmetrics.Run{untimed()}, DiffOptions{})
	require.NoError(t, err)
	out.Reset()
	require.NoError(t, d.WriteTable(&out))
	assert.Contains(t, out.String(), "not compared: requests_per_s: A run 1 and B run 1 have no throughput window: ")

	// A reason that does not begin "the run has" follows the runs' names.
	noPrompt := func() *llmmetrics.Run {
		r := timed()
		for i := range r.Records {
			r.Records[i].PromptTokens = 0
		}
		return r
	}
	d, err = DiffRuns([]*llmmetrics.Run{noPrompt()}, []*llmmetrics.Run{timed()}, DiffOptions{})
	require.NoError(t, err)
	out.Reset()
	require.NoError(t, d.WriteTable(&out))
	assert.Contains(t, out.String(), "not compared: prompt_tokens_per_s: A run 1: no ok record carries a prompt token count\n")
}
