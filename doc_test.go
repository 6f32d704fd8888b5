package llmmetrics

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// parsePackage returns the package's non-test files and its example file.
func parsePackage(t *testing.T) (src []*ast.File, examples *ast.File) {
	t.Helper()
	fset := token.NewFileSet()
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range names {
		f, err := parser.ParseFile(fset, name, nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case name == "example_test.go":
			examples = f
		case !strings.HasSuffix(name, "_test.go"):
			src = append(src, f)
		}
	}
	return src, examples
}

// Every exported function and method has an Example in example_test.go.
func TestEveryFunctionHasExample(t *testing.T) {
	src, examples := parsePackage(t)
	have := map[string]bool{}
	for _, d := range examples.Decls {
		if fn, ok := d.(*ast.FuncDecl); ok {
			have[strings.TrimPrefix(fn.Name.Name, "Example")] = true
		}
	}
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
				id, ok := typ.(*ast.Ident)
				if !ok || !id.IsExported() {
					continue
				}
				// Error, Unwrap and MarshalJSON's siblings are
				// interface methods; they are exercised by the examples
				// of their types.
				if name == "Error" || name == "Unwrap" {
					continue
				}
				name = id.Name + "_" + name
			}
			if fn.Doc == nil {
				t.Errorf("%s has no doc comment", name)
			}
			if !have[name] {
				t.Errorf("%s has no Example%s", name, name)
			}
		}
	}
}

// Every sentinel error is listed in doc.go's Errors section.
func TestDocListsEverySentinel(t *testing.T) {
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	src, _ := parsePackage(t)
	for _, f := range src {
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.VAR {
				continue
			}
			for _, s := range g.Specs {
				for _, n := range s.(*ast.ValueSpec).Names {
					if strings.HasPrefix(n.Name, "Err") && !strings.Contains(string(doc), "["+n.Name+"]") {
						t.Errorf("doc.go does not list %s", n.Name)
					}
				}
			}
		}
	}
}
