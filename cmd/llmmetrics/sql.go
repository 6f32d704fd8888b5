package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/parquet/sqlrecipe"
)

var sqlCommand = &command{
	name:     "sql",
	synopsis: "llmmetrics sql [flags] [FILE]",
	about: "Sql prints the definitions of report's figures as SQL: views over a run's Parquet records\n" +
		"(FILE, default run.parquet; a glob reads several files as one run) that compute the accounting,\n" +
		"TTFT, TPOT, E2E, the chunk gaps, each request's largest gap, percentiles by nearest rank or linear\n" +
		"interpolation, the rates over the window, SLO attainment and goodput, as report computes them. It\n" +
		"does not read FILE. The recipe is written for DuckDB and ends in the view lm_figures, every figure\n" +
		"as a row; its definitions are portable SQL, and a comment marked \"dialect:\" names what Spark SQL,\n" +
		"Trino and ClickHouse write instead. The flags fill in its settings (the view lm_settings), as\n" +
		"report's flags choose its figures; warm-up is by a number of requests only. A file converted from\n" +
		"another tool's results that declares a window needs it given with --window (docs/scale.md).",
	examples: []string{
		"llmmetrics sql run.parquet | duckdb run.duckdb && duckdb run.duckdb -c 'SELECT * FROM lm_figures'",
		"llmmetrics sql --slo ttft=500ms,tpot=50ms --method linear --percentiles 50,99,99.9 run.parquet",
		"llmmetrics sql 'shard-*.parquet'",
	},
	flags: func() *flag.FlagSet { fs, _ := newSQLFlags(); return fs },
}

type sqlFlags struct {
	method, percentiles, slo *string
	sloStrict                *bool
	window                   *time.Duration
	warmup                   *int
}

func newSQLFlags() (*flag.FlagSet, *sqlFlags) {
	fs := flag.NewFlagSet("sql", flag.ContinueOnError)
	f := &sqlFlags{
		method:      fs.String("method", "nearest-rank", "percentile `method`: nearest-rank or linear (Hyndman–Fan type 7, numpy's default)"),
		percentiles: fs.String("percentiles", "50,90,95,99", "comma-separated `list` of percentiles, each in [0, 100], e.g. 50,99,99.9"),
		slo:         fs.String("slo", "", "per-request SLO for goodput, any subset of ttft, tpot, e2e and max_gap, e.g. `ttft=500ms,tpot=50ms`"),
		sloStrict:   fs.Bool("slo-strict", false, "a value meets an SLO limit only below it (<), not at it (≤)"),
		window:      fs.Duration("window", 0, "declared `duration` of the run for the rates (default: first send → last text chunk)"),
		warmup:      fs.Int("warmup", 0, "the first `N` measured requests in send order are warm-up"),
	}
	return fs, f
}

// printSQL is the sql command.
func printSQL(args []string, _ io.Reader, stdout io.Writer) error {
	fs, f := newSQLFlags()
	files, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(files) > 1 {
		return fmt.Errorf("%w: one file at most (a glob in quotes reads several), got %d", errUsage, len(files))
	}
	file := "run.parquet"
	if len(files) == 1 {
		file = files[0]
	}
	var opt llmmetrics.Options
	if err := opt.Method.UnmarshalText([]byte(*f.method)); err != nil {
		return usageError("method", err)
	}
	if opt.Percentiles, err = llmmetrics.ParsePercentiles(*f.percentiles); err != nil {
		return usageError("percentiles", err)
	}
	if *f.window < 0 || *f.window == 0 && flagSet(fs, "window") {
		return usageError("window", fmt.Errorf("%v: %w", *f.window, llmmetrics.ErrInvalidWindow))
	}
	opt.Window = *f.window
	switch {
	case *f.slo != "":
		slo, err := llmmetrics.ParseSLO(*f.slo)
		if err != nil {
			return usageError("slo", err)
		}
		slo.Strict = *f.sloStrict
		opt.SLO = &slo
	case *f.sloStrict:
		return fmt.Errorf("%w: --slo-strict needs --slo", errUsage)
	}
	if *f.warmup < 0 {
		return usageError("warmup", errors.New("a number of requests is not negative"))
	}
	if *f.warmup > 0 {
		opt.Warmup = &llmmetrics.WarmupSpec{Requests: *f.warmup}
	}
	return sqlrecipe.Write(stdout, file, opt)
}
