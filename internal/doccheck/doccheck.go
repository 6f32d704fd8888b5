// Package doccheck lists the exported functions and methods of a package
// that lack a doc comment or an Example, for tests that keep a package's
// documentation complete.
package doccheck

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// Missing parses the Go files of dir and returns one line for each
// exported function or method (of an exported type) that has no doc
// comment or no Example in the package's example_test.go. Error and
// Unwrap methods are left out: they implement the error interface.
func Missing(dir string) ([]string, error) {
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	examples := map[string]bool{}
	var src []*ast.File
	for _, name := range names {
		f, err := parser.ParseFile(fset, name, nil, parser.ParseComments)
		if err != nil {
			return nil, err
		}
		switch base := filepath.Base(name); {
		case base == "example_test.go":
			for _, d := range f.Decls {
				if fn, ok := d.(*ast.FuncDecl); ok {
					examples[strings.TrimPrefix(fn.Name.Name, "Example")] = true
				}
			}
		case !strings.HasSuffix(base, "_test.go"):
			src = append(src, f)
		}
	}
	var missing []string
	for _, f := range src {
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || !fn.Name.IsExported() {
				continue
			}
			name := fn.Name.Name
			if fn.Recv != nil {
				typ := fn.Recv.List[0].Type
				if star, ok := typ.(*ast.StarExpr); ok {
					typ = star.X
				}
				if idx, ok := typ.(*ast.IndexExpr); ok {
					typ = idx.X
				}
				id, ok := typ.(*ast.Ident)
				if !ok || !id.IsExported() || name == "Error" || name == "Unwrap" {
					continue
				}
				name = id.Name + "_" + name
			}
			if fn.Doc == nil {
				missing = append(missing, fmt.Sprintf("%s has no doc comment", name))
			}
			if !examples[name] {
				missing = append(missing, fmt.Sprintf("%s has no Example%s", name, name))
			}
		}
	}
	return missing, nil
}

// Test fails t once for each exported function or method of the package in
// dir that lacks a doc comment or an Example (see Missing).
func Test(t testing.TB, dir string) {
	t.Helper()
	missing, err := Missing(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range missing {
		t.Error(m)
	}
}
