package main

import (
	"strings"
	"testing"
	"time"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/parquet/sqlrecipe"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sql prints the recipe of package sqlrecipe (which the module ./sqltest
// runs in DuckDB on every conformance case), its settings from the flags.
func TestSQL(t *testing.T) {
	code, out, errs := runCLI(t, "", "sql")
	require.Equal(t, 0, code, errs)
	assert.Equal(t, sqlrecipe.Recipe(), out, "sql without flags prints the recipe as embedded")

	code, out, errs = runCLI(t, "", "sql", "--method", "linear", "--percentiles", "50,99.9", "--slo", "ttft=500ms,max_gap=1s",
		"--slo-strict", "--window", "90s", "--warmup", "10", "shard-*.parquet")
	require.Equal(t, 0, code, errs)
	p50, _ := llmmetrics.NewPercentile(50)
	p999, _ := llmmetrics.NewPercentile(99.9)
	var want strings.Builder
	require.NoError(t, sqlrecipe.Write(&want, "shard-*.parquet", llmmetrics.Options{
		Method:      llmmetrics.Linear,
		Percentiles: []llmmetrics.Percentile{p50, p999},
		SLO:         &llmmetrics.SLO{TTFT: 500 * time.Millisecond, MaxGap: time.Second, Strict: true},
		Window:      90 * time.Second,
		Warmup:      &llmmetrics.WarmupSpec{Requests: 10},
	}))
	assert.Equal(t, want.String(), out)
	for _, s := range []string{"read_parquet('shard-*.parquet')", "'linear'", "CAST(90000000000 AS BIGINT) AS window_ns",
		"CAST(10 AS BIGINT)  AS warmup_requests", "CAST(500000000 AS BIGINT) AS slo_ttft_ns", "TRUE                AS slo_strict", "'p99.9'"} {
		assert.Contains(t, out, s)
	}
}

func TestSQLUsage(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"sql", "--method", "mean"}, "--method"},
		{[]string{"sql", "--percentiles", "101"}, "--percentiles"},
		{[]string{"sql", "--slo", "ttft=fast"}, "--slo"},
		{[]string{"sql", "--slo-strict"}, "--slo-strict needs --slo"},
		{[]string{"sql", "--warmup", "30s"}, "--warmup"},
		{[]string{"sql", "--window", "0s"}, "--window"},
		{[]string{"sql", "a.parquet", "b.parquet"}, "one file at most"},
	} {
		code, out, errs := runCLI(t, "", c.args...)
		assert.Equal(t, 2, code, "%v", c.args)
		assert.Empty(t, out, "%v", c.args)
		assert.Contains(t, errs, c.want, "%v", c.args)
	}
}
