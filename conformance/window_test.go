package conformance

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strings"
	"testing"
)

// derivedWindow is how the kit, the reference and the library derive a
// window that is not declared.
const derivedWindow = "from the first send of a measured request to the last text chunk of an ok request"

// fieldDoc returns the doc comment of field name of struct typ in the Go
// file at path, with its lines joined.
func fieldDoc(t *testing.T, path, typ, name string) string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	doc, found := "", false
	ast.Inspect(f, func(n ast.Node) bool {
		ts, ok := n.(*ast.TypeSpec)
		if !ok || ts.Name.Name != typ {
			return true
		}
		st, ok := ts.Type.(*ast.StructType)
		if !ok {
			return false
		}
		for _, fl := range st.Fields.List {
			for _, id := range fl.Names {
				if id.Name == name {
					doc, found = strings.Join(strings.Fields(fl.Doc.Text()), " "), true
				}
			}
		}
		return false
	})
	if !found {
		t.Fatalf("%s: no field %s.%s", path, typ, name)
	}
	return doc
}

// The window the kit derives when a case declares none is the library's:
// the docs of conformance.Options.Window, llmmetrics.Options.Window and
// llmmetrics.Window.Declared say the same, as the reference computes it
// (reference_test.go) and the library does (engine_gather.go: the start is
// noted for every measured record, the end for ok records only).
func TestWindowDocsAgree(t *testing.T) {
	for _, d := range []struct{ path, typ, field string }{
		{"case.go", "Options", "Window"},
		{"../summary.go", "Options", "Window"},
		{"../throughput.go", "Window", "Declared"},
	} {
		if doc := fieldDoc(t, d.path, d.typ, d.field); !strings.Contains(doc, derivedWindow) {
			t.Errorf("%s: %s.%s's doc does not say the window runs %q: %s", d.path, d.typ, d.field, derivedWindow, doc)
		}
	}
}
