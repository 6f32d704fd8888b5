//go:build !cgo

package sqltest

import "testing"

// Without cgo there is no DuckDB to run the recipe in.
func TestConformance(t *testing.T) {
	t.Skip("DuckDB (github.com/duckdb/duckdb-go) needs cgo and a C compiler: CGO_ENABLED=0 skips the recipe's test")
}
