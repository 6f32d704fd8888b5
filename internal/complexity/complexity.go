// Package complexity measures the cyclomatic complexity of Go functions the
// way github.com/fzipp/gocyclo does, for a test that keeps every function of
// the repository short enough to read.
//
// The complexity of a function is one, plus one for each if, for and range
// statement, each case of a switch or select other than default, and each
// && and || operator. Function literals count towards the function that
// holds them.
package complexity

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
)

// Func is one function or method and its cyclomatic complexity.
type Func struct {
	Path       string // file, slash-separated and relative to the walked root
	Line       int    // line of the func keyword
	Name       string // "name", "(T).name" or "(*T).name", as gocyclo writes it
	Complexity int
}

// Key is the file and name of f, "path name", which stays the same when
// lines above the function move.
func (f Func) Key() string { return f.Path + " " + f.Name }

func (f Func) String() string {
	return fmt.Sprintf("%s:%d: %s has cyclomatic complexity %d", f.Path, f.Line, f.Name, f.Complexity)
}

// Of returns the cyclomatic complexity of fn.
func Of(fn ast.Node) int {
	c := 1
	ast.Inspect(fn, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.IfStmt, *ast.ForStmt, *ast.RangeStmt:
			c++
		case *ast.CaseClause:
			if n.List != nil { // default
				c++
			}
		case *ast.CommClause:
			if n.Comm != nil { // default
				c++
			}
		case *ast.BinaryExpr:
			if n.Op == token.LAND || n.Op == token.LOR {
				c++
			}
		}
		return true
	})
	return c
}

// skipDirs are directories whose Go files are not part of the build: test
// inputs, vendored code, and the shared data linked beside a worktree.
var skipDirs = map[string]bool{"testdata": true, "vendor": true, "shared": true}

// Walk parses every Go file under root that is not a test file, skipping
// testdata, vendor, shared and hidden directories, and returns each function
// declaration with its complexity, ordered by file and line.
func Walk(root string) ([]Func, error) {
	var funcs []Func
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (skipDirs[name] || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok {
				continue
			}
			funcs = append(funcs, Func{
				Path:       filepath.ToSlash(rel),
				Line:       fset.Position(fn.Pos()).Line,
				Name:       funcName(fn),
				Complexity: Of(fn),
			})
		}
		return nil
	})
	sort.SliceStable(funcs, func(i, j int) bool {
		if funcs[i].Path != funcs[j].Path {
			return funcs[i].Path < funcs[j].Path
		}
		return funcs[i].Line < funcs[j].Line
	})
	return funcs, err
}

// funcName names fn as gocyclo does: "f", "(T).f" or "(*T).f", with type
// parameters of the receiver left out.
func funcName(fn *ast.FuncDecl) string {
	if fn.Recv == nil || len(fn.Recv.List) == 0 {
		return fn.Name.Name
	}
	return "(" + recvName(fn.Recv.List[0].Type) + ")." + fn.Name.Name
}

func recvName(t ast.Expr) string {
	switch t := t.(type) {
	case *ast.StarExpr:
		return "*" + recvName(t.X)
	case *ast.IndexExpr:
		return recvName(t.X)
	case *ast.IndexListExpr:
		return recvName(t.X)
	case *ast.ParenExpr:
		return recvName(t.X)
	case *ast.Ident:
		return t.Name
	}
	return "?"
}
