package llmmetrics_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// No built binary, model or large generated file is committed: every
// tracked file is under 2 MB and none is an ELF executable (a gateway
// binary once was, 29 MB).
func TestNoBinariesCommitted(t *testing.T) {
	out, err := exec.Command("git", "ls-files", "-z").Output()
	if err != nil {
		t.Skipf("git ls-files: %v (not a git work tree, or no git)", err)
	}
	for _, name := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		st, err := os.Stat(name)
		if err != nil {
			continue // deleted in the work tree
		}
		if st.Size() > 2<<20 {
			t.Errorf("%s is committed at %d bytes: large generated data stays out of the repository", name, st.Size())
		}
		f, err := os.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		head := make([]byte, 4)
		n, _ := f.Read(head)
		f.Close()
		if bytes.Equal(head[:n], []byte("\x7fELF")) {
			t.Errorf("%s is a built binary (ELF): binaries are never committed", name)
		}
	}
}

// The root is the metrics, kept small: at most 6,500 lines of non-test Go
// and 70 lines of `go doc -short .`; new things go to sub-packages.
func TestRootSize(t *testing.T) {
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	lines := 0
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		lines += bytes.Count(b, []byte("\n"))
	}
	if lines > 6500 {
		t.Errorf("the root holds %d lines of non-test Go, above 6,500: move what is not the metrics to a sub-package", lines)
	}
	doc, err := exec.Command("go", "doc", "-short", ".").Output()
	if err != nil {
		t.Skipf("go doc: %v", err)
	}
	if n := bytes.Count(doc, []byte("\n")); n > 70 {
		t.Errorf("go doc -short . has %d lines, above 70: the root's API stays small", n)
	}
}

// A metric's JSON key is written out in few places: the catalogue, and
// at most three other non-test files outside the directories that speak
// other tools' names (formats, examples, conformance, bench). The rest
// take it from the catalogue (llmmetrics.Metrics).
func TestMetricKeyLiterals(t *testing.T) {
	out, err := exec.Command("git", "ls-files", "-z", "*.go").Output()
	if err != nil {
		t.Skipf("git ls-files: %v (not a git work tree, or no git)", err)
	}
	keys := []string{`"ttft"`, `"tpot"`, `"e2e"`, `"itl"`, `"max_gap"`}
	files := map[string][]string{}
	for _, name := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		first, _, _ := strings.Cut(name, "/")
		switch {
		case strings.HasSuffix(name, "_test.go"), first == "formats", first == "examples", first == "conformance", first == "bench":
			continue
		}
		b, err := os.ReadFile(name)
		if err != nil {
			continue // deleted in the work tree
		}
		for _, k := range keys {
			if bytes.Contains(b, []byte(k)) {
				files[k] = append(files[k], name)
			}
		}
	}
	for _, k := range keys {
		if n := len(files[k]); n > 4 {
			t.Errorf("%s is written in %d non-test files, above 4: %s; take it from the catalogue", k, n, strings.Join(files[k], ", "))
		}
	}
	if len(files[`"ttft"`]) == 0 {
		t.Errorf(`"ttft" found nowhere: the test no longer reads the sources`)
	}
}
