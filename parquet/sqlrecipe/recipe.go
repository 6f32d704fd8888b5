package sqlrecipe

import (
	_ "embed"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/llmmetrics/llmmetrics"
)

// recipe is the recipe with its default settings: it reads run.parquet,
// by nearest rank, at p50, p90, p95 and p99, with a derived window, no
// warm-up by number and no SLO.
//
//go:embed recipe.sql
var recipe string

// The markers around the settings, which Write replaces.
const (
	settingsBegin = "-- settings begin\n"
	settingsEnd   = "-- settings end\n"
)

// ErrUnsupported means an option the recipe does not express.
var ErrUnsupported = errors.New("sqlrecipe: not expressed by the recipe")

// Recipe returns the recipe with its default settings: the file
// run.parquet, percentiles by nearest rank at p50, p90, p95 and p99, the
// window derived from the records, no warm-up by number, no SLO.
func Recipe() string { return recipe }

// Write writes the recipe for the Parquet file (or glob of files) named
// by file, with the settings of opt: its method, percentiles (nil: the
// library's defaults), window, NoSendTimes, SLO and warm-up by a number
// of requests. Options it cannot express (warm-up by duration or rule,
// strata) are an error wrapping ErrUnsupported.
func Write(w io.Writer, file string, opt llmmetrics.Options) error {
	settings, err := Settings(file, opt)
	if err != nil {
		return err
	}
	i := strings.Index(recipe, settingsBegin)
	j := strings.Index(recipe, settingsEnd)
	_, err = io.WriteString(w, recipe[:i]+settings+recipe[j+len(settingsEnd):])
	return err
}

// Settings returns the recipe's first part for file and opt, from its
// line "-- settings begin" to its line "-- settings end": the views
// lm_records, lm_settings and lm_percentiles.
func Settings(file string, opt llmmetrics.Options) (string, error) {
	if w := opt.Warmup; w != nil && (w.Duration != 0 || w.Rule != nil) {
		return "", fmt.Errorf("%w: warm-up by duration or by rule (mark the warm-up requests in the file, or give a number of requests)", ErrUnsupported)
	}
	if opt.Stratify != nil {
		return "", fmt.Errorf("%w: strata", ErrUnsupported)
	}
	if opt.Window < 0 {
		return "", fmt.Errorf("sqlrecipe: window %v is negative", opt.Window)
	}
	var b strings.Builder
	b.WriteString(settingsBegin)
	fmt.Fprintf(&b, "CREATE OR REPLACE VIEW lm_records AS\nSELECT * FROM read_parquet(%s);\n", quote(file))
	b.WriteString(sourceDialects)

	warmup := 0
	if opt.Warmup != nil {
		warmup = opt.Warmup.Requests
	}
	var slo llmmetrics.SLO
	if opt.SLO != nil {
		slo = *opt.SLO
	}
	b.WriteString("\nCREATE OR REPLACE VIEW lm_settings AS\nSELECT\n")
	for _, s := range []struct{ value, name, comment string }{
		{quote(opt.Method.String()), "method", "'nearest-rank' or 'linear'"},
		{bigint(int64(opt.Window)), "window_ns", "a declared window; 0: derive it"},
		{boolean(!opt.NoSendTimes), "derive_window", "FALSE when the send times are not real"},
		{bigint(int64(warmup)), "warmup_requests", "the first N measured requests by send time are warm-up"},
		{boolean(opt.SLO != nil), "has_slo", "TRUE: judge the limits below (0: no limit)"},
		{bigint(int64(slo.TTFT)), "slo_ttft_ns", ""},
		{bigint(int64(slo.TPOT)), "slo_tpot_ns", ""},
		{bigint(int64(slo.E2E)), "slo_e2e_ns", ""},
		{bigint(int64(slo.MaxGap)), "slo_max_gap_ns", ""},
		{boolean(slo.Strict), "slo_strict", "TRUE: a limit is met only below it"},
	} {
		line := fmt.Sprintf("    %-19s AS %s", s.value, s.name)
		if s.name == "slo_strict" {
			line += ";"
		} else {
			line += ","
		}
		if s.comment != "" {
			line = fmt.Sprintf("%-43s -- %s", line, s.comment)
		}
		b.WriteString(line + "\n")
	}

	ps := opt.Percentiles
	if ps == nil {
		ps = llmmetrics.DefaultPercentiles
	}
	b.WriteString("\nCREATE OR REPLACE VIEW lm_percentiles AS\n")
	if len(ps) == 0 {
		b.WriteString("SELECT CAST(NULL AS VARCHAR) AS name, CAST(NULL AS BIGINT) AS p_units WHERE FALSE;\n")
	}
	for i, p := range ps {
		units := int64(math.Round(p.Float() * 1e6))
		switch i {
		case 0:
			fmt.Fprintf(&b, "          SELECT %s AS name, %s AS p_units", quote(p.Key()), bigint(units))
		default:
			fmt.Fprintf(&b, "\nUNION ALL SELECT %s, %s", quote(p.Key()), bigint(units))
		}
		if i == len(ps)-1 {
			b.WriteString(";\n")
		}
	}
	b.WriteString(settingsEnd)
	return b.String(), nil
}

// sourceDialects follows the view lm_records.
const sourceDialects = `-- dialect: Spark SQL: SELECT * FROM parquet.` + "`run.parquet`" + `;
--          Trino: a table over the files (the Hive or Iceberg connector);
--          ClickHouse: SELECT * FROM file('run.parquet', Parquet).
-- Several files of one run (the shards of ` + "`run --shard`" + `): a glob,
-- read_parquet('shard-*.parquet'); each file's sent_ns counts from its own
-- start, and the window, warm-up and rates put them on one clock by
-- sent_unix_ns (see lm_timed). A file without that column or one_body
-- (written before them): SELECT *, CAST(NULL AS BIGINT) AS sent_unix_ns,
-- false AS one_body FROM ….
`

// quote writes s as a SQL string literal.
func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

func bigint(x int64) string { return fmt.Sprintf("CAST(%d AS BIGINT)", x) }

func boolean(b bool) string {
	if b {
		return "TRUE"
	}
	return "FALSE"
}
