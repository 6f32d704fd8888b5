package llmmetrics

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmmetrics/llmmetrics/internal/doccheck"
)

// Every exported function and method has a doc comment and an Example.
func TestEveryFunctionHasExample(t *testing.T) { doccheck.Test(t, ".") }

// Every sentinel error is listed in doc.go's Errors section.
func TestDocListsEverySentinel(t *testing.T) {
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
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
