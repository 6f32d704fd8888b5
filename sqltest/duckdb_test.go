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

// A duck is an in-memory DuckDB that runs the recipe.
type duck struct {
	db *sql.DB
	// definitions is the recipe's second part as last run: the views
	// over the settings, the same for every file and setting, which are
	// created once and bound again at each query.
	definitions string
}

// openDB opens an in-memory DuckDB, closed when the test ends.
func openDB(t testing.TB) *duck {
	t.Helper()
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return &duck{db: db}
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
func recipeFigures(t testing.TB, d *duck, path string, opt llmmetrics.Options) conformance.Figures {
	t.Helper()
	var b strings.Builder
	if err := sqlrecipe.Write(&b, path, opt); err != nil {
		t.Fatalf("sqlrecipe.Write: %v", err)
	}
	// The whole recipe the first time; then its first part, the file and
	// the settings, when the rest is the same.
	recipe := b.String()
	end := strings.Index(recipe, "-- settings end\n")
	if end < 0 {
		t.Fatal("the recipe has no line \"-- settings end\"")
	}
	run := recipe
	if recipe[end:] == d.definitions {
		run = recipe[:end]
	}
	if _, err := d.db.Exec(run); err != nil {
		t.Fatalf("the recipe: %v", err)
	}
	d.definitions = recipe[end:]
	rows, err := d.db.Query("SELECT figure, value FROM lm_figures")
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
