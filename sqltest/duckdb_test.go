//go:build cgo

package sqltest

import (
	"bytes"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/duckdb/duckdb-go/v2"
	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/conformance"
	"github.com/llmmetrics/llmmetrics/parquet"
	"github.com/llmmetrics/llmmetrics/parquet/sqlrecipe"
)

// openDB opens an in-memory DuckDB, closed when the test ends.
func openDB(t *testing.T) *sql.DB {
	t.Helper()
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// writeParquet writes run as Parquet into dir under name, and returns
// the file's path.
func writeParquet(t *testing.T, dir, name string, run *llmmetrics.Run) string {
	t.Helper()
	var b bytes.Buffer
	if err := parquet.Write(&b, run); err != nil {
		t.Fatalf("parquet.Write: %v", err)
	}
	path := filepath.Join(dir, name+".parquet")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// recipeFigures runs the recipe for the file at path with opt, and
// returns the rows of its view lm_figures.
func recipeFigures(t *testing.T, db *sql.DB, path string, opt llmmetrics.Options) conformance.Figures {
	t.Helper()
	var recipe strings.Builder
	if err := sqlrecipe.Write(&recipe, path, opt); err != nil {
		t.Fatalf("sqlrecipe.Write: %v", err)
	}
	if _, err := db.Exec(recipe.String()); err != nil {
		t.Fatalf("the recipe: %v", err)
	}
	rows, err := db.Query("SELECT figure, value FROM lm_figures")
	if err != nil {
		t.Fatalf("SELECT FROM lm_figures: %v", err)
	}
	defer rows.Close()
	got := conformance.Figures{}
	for rows.Next() {
		var name string
		var v sql.NullFloat64
		if err := rows.Scan(&name, &v); err != nil {
			t.Fatal(err)
		}
		if _, dup := got[name]; dup {
			t.Fatalf("lm_figures has %s twice", name)
		}
		got[name] = conformance.Absent
		if v.Valid {
			got[name] = conformance.Num(v.Float64)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return got
}

// report lists the differences, for a failure message.
func report(differ, missing []conformance.Difference) string {
	var b strings.Builder
	for _, d := range append(differ, missing...) {
		fmt.Fprintf(&b, "\n  %s", d)
	}
	return b.String()
}
