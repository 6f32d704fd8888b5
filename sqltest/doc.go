// Package sqltest runs the SQL recipe of package
// github.com/llmmetrics/llmmetrics/parquet/sqlrecipe (what `llmmetrics
// sql` prints) in DuckDB, through github.com/duckdb/duckdb-go: on every
// case of the conformance kit written as Parquet, whose expected figures
// it must give, and on the real files of other tools under
// ../shared/realdata, whose figures it must give as `llmmetrics report`
// does.
//
// It takes DuckDB 2.0 (duckdb-go v2.20000.0): DuckDB 1.x refuses the
// files package parquet writes, whose integer columns are
// BYTE_STREAM_SPLIT (duckdb/duckdb#17114; read from 2.0 on, #24175).
//
// It is a module of its own, so that DuckDB (a cgo build) is never a
// dependency of the library, of package parquet or of the command: `go
// test ./...` of those never builds it.
package sqltest
