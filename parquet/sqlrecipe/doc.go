// Package sqlrecipe holds the definitions of llmmetrics' figures as SQL:
// a recipe of views over the Parquet schema of package parquet (one row a
// request) that computes the accounting, TTFT, TPOT, E2E, the chunk gaps
// (ITL), each request's largest gap, nearest-rank and linear percentiles,
// the rates over the window, SLO attainment and goodput, as `llmmetrics
// report` computes them.
//
// The recipe is written for DuckDB, which reads Parquet with no set-up,
// and in portable SQL (views, window functions, integer arithmetic) but
// where a comment marked "dialect:" names what Spark SQL, Trino and
// ClickHouse write instead. Its first part reads the file and holds the
// settings (percentile method, percentiles, window, warm-up, SLO); its
// second part is the definitions, which end in the view lm_figures: every
// figure as a (figure, value) row, named as package conformance names
// them, with NULL for a figure that is absent.
//
// The module's test (the module ./sqltest of the repository, which
// depends on DuckDB; this package does not) runs the recipe on every case
// of the conformance kit and requires the kit's figures.
package sqlrecipe
