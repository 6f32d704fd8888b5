package sqlrecipe

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/llmmetrics/llmmetrics"
)

// The recipe as embedded is what Write gives for its defaults, so that
// the file reads as the command prints it.
func TestDefaultsAreTheEmbeddedRecipe(t *testing.T) {
	var b strings.Builder
	if err := Write(&b, "run.parquet", llmmetrics.Options{}); err != nil {
		t.Fatal(err)
	}
	if b.String() != Recipe() {
		t.Errorf("Write with the defaults differs from recipe.sql:\n%s", firstDifference(b.String(), Recipe()))
	}
}

func firstDifference(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range min(len(al), len(bl)) {
		if al[i] != bl[i] {
			return "line " + strconv.Itoa(i+1) + ":\n got  " + al[i] + "\n want " + bl[i]
		}
	}
	return "lengths differ"
}

func TestSettings(t *testing.T) {
	p999, _ := llmmetrics.NewPercentile(99.9)
	p7, _ := llmmetrics.NewPercentile(7)
	s, err := Settings("it's.parquet", llmmetrics.Options{
		Method:      llmmetrics.Linear,
		Percentiles: []llmmetrics.Percentile{p7, p999},
		Window:      1500 * time.Millisecond,
		Warmup:      &llmmetrics.WarmupSpec{Requests: 3},
		SLO:         &llmmetrics.SLO{TTFT: 500 * time.Millisecond, MaxGap: time.Second, Strict: true},
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"read_parquet('it''s.parquet')",
		"'linear'            AS method,",
		"CAST(1500000000 AS BIGINT) AS window_ns,",
		"CAST(3 AS BIGINT)   AS warmup_requests,",
		"TRUE                AS has_slo,",
		"CAST(500000000 AS BIGINT) AS slo_ttft_ns,",
		"CAST(0 AS BIGINT)   AS slo_tpot_ns,",
		"CAST(1000000000 AS BIGINT) AS slo_max_gap_ns,",
		"TRUE                AS slo_strict;",
		"SELECT 'p7' AS name, CAST(7000000 AS BIGINT) AS p_units\nUNION ALL SELECT 'p99.9', CAST(99900000 AS BIGINT);\n",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("settings lack %q:\n%s", want, s)
		}
	}
}

func TestSettingsUnsupported(t *testing.T) {
	for _, opt := range []llmmetrics.Options{
		{Warmup: &llmmetrics.WarmupSpec{Duration: time.Second}},
		{Stratify: &llmmetrics.StrataSpec{}},
	} {
		if _, err := Settings("run.parquet", opt); err == nil {
			t.Errorf("%+v: no error", opt)
		}
	}
}
