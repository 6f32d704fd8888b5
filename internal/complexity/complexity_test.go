package complexity

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// limit is the highest cyclomatic complexity a function may have: above it a
// function is split along the stages it already has.
const limit = 30

// known are the functions above the limit that belong to work in progress
// elsewhere; each is to be split and its line removed. The figure is the one
// measured when it was listed. An entry that no longer names a function over
// the limit fails the test, so the list only shrinks.
var known = map[string]int{}

// TestRepositoryComplexity fails once for each function, in any module of the
// workspace, whose cyclomatic complexity is above limit.
func TestRepositoryComplexity(t *testing.T) {
	root := filepath.Join("..", "..")
	funcs, err := Walk(root)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	dirs := map[string]bool{}
	mods := workModules(t, filepath.Join(root, "go.work"))
	for _, f := range funcs {
		dirs[moduleOf(f.Path, mods)] = true
		if f.Complexity <= limit {
			continue
		}
		if was, ok := known[f.Key()]; ok {
			seen[f.Key()] = true
			t.Logf("known: %v (listed at %d)", f, was)
			continue
		}
		t.Errorf("%v, above %d: split it along its stages", f, limit)
	}
	for k := range known {
		if !seen[k] {
			t.Errorf("known list names %q, which is no longer above %d: remove it", k, limit)
		}
	}
	for _, m := range mods {
		if !dirs[m] && hasSource(t, filepath.Join(root, m)) {
			t.Errorf("module %s of go.work has no function the walk found", m)
		}
	}
}

// moduleOf returns the module directory of path: the longest of mods
// (go.work's use directives, "." the root) that holds it.
func moduleOf(path string, mods []string) string {
	best := "."
	for _, m := range mods {
		if m != "." && strings.HasPrefix(path, m+"/") && len(m) > len(best) {
			best = m
		}
	}
	return best
}

// workModules reads the use directives of go.work.
func workModules(t *testing.T, name string) []string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	var mods []string
	in := false
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		switch {
		case line == "use (":
			in = true
		case in && line == ")":
			in = false
		case in && line != "" && !strings.HasPrefix(line, "//"):
			mods = append(mods, strings.TrimPrefix(filepath.ToSlash(filepath.Clean(line)), "./"))
		}
	}
	if len(mods) == 0 {
		t.Fatalf("%s has no use directives", name)
	}
	return mods
}

// TestOf checks the counter on functions whose complexity is counted by hand
// in the comment beside each.
func TestOf(t *testing.T) {
	tests := []struct {
		src  string
		want int
	}{
		{`func f() {}`, 1},
		// 1 + if + || = 3
		{`func f(a, b bool) { if a || b { return } }`, 3},
		// 1 + for + range + if + && = 5
		{`func f(xs []int) { for { break }; for range xs { if true && false {} } }`, 5},
		// 1 + two cases (default not counted) = 3
		{`func f(x int) { switch x { case 1: case 2, 3: default: } }`, 3},
		// 1 + one type case (default not counted) = 2
		{`func f(x any) { switch x.(type) { case int: default: } }`, 2},
		// 1 + two comm clauses (default not counted) = 3
		{`func f(a, b chan int) { select { case <-a: case b <- 1: default: } }`, 3},
		// 1 + if in the closure + if outside = 3
		{`func f() { g := func(x bool) { if x {} }; if true { g(true) } }`, 3},
		// else if is a second if: 1 + 2 = 3
		{`func f(x int) { if x > 1 {} else if x < 0 {} else {} }`, 3},
	}
	for _, tt := range tests {
		fset := token.NewFileSet()
		file, err := parser.ParseFile(fset, "x.go", "package p\n"+tt.src, 0)
		if err != nil {
			t.Fatal(err)
		}
		fn := file.Decls[0].(*ast.FuncDecl)
		if got := Of(fn); got != tt.want {
			t.Errorf("%s: complexity %d, want %d", tt.src, got, tt.want)
		}
	}
}

// TestFuncName checks the names against gocyclo's spelling.
func TestFuncName(t *testing.T) {
	tests := map[string]string{
		`func f() {}`:             "f",
		`func (T) f() {}`:         "(T).f",
		`func (t *T) f() {}`:      "(*T).f",
		`func (t *T[K]) f() {}`:   "(*T).f",
		`func (t T[K, V]) f() {}`: "(T).f",
	}
	for src, want := range tests {
		file, err := parser.ParseFile(token.NewFileSet(), "x.go", "package p\n"+src, 0)
		if err != nil {
			t.Fatal(err)
		}
		if got := funcName(file.Decls[0].(*ast.FuncDecl)); got != want {
			t.Errorf("%s: name %q, want %q", src, got, want)
		}
	}
}

// hasSource reports whether dir holds a non-test Go file with a function
// in its own directory: a module of tests only (sqltest, whose one other
// file is its doc.go) has no function to find.
func hasSource(t *testing.T, dir string) bool {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		if strings.HasSuffix(n, "_test.go") {
			continue
		}
		b, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), "\nfunc ") {
			return true
		}
	}
	return false
}
