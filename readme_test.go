package llmmetrics_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The README is a guide: at most 250 lines; the longer material is in docs/.
func TestReadmeLength(t *testing.T) {
	lines := strings.Count(readme(t), "\n")
	if lines > 250 {
		t.Errorf("README.md has %d lines; the guide keeps to 250 and moves the rest to docs/", lines)
	}
}

// The README's set-up commands are what CI runs, word for word.
func TestReadmeSetupInCI(t *testing.T) {
	block := fenced(t, readme(t), "## Install and set-up", "sh")
	ci, err := os.ReadFile(".ci/run")
	if err != nil {
		t.Fatal(err)
	}
	ciLines := map[string]bool{}
	for _, l := range strings.Split(string(ci), "\n") {
		ciLines[strings.TrimSpace(l)] = true
	}
	var n int
	for _, l := range strings.Split(block, "\n") {
		if l = strings.TrimSpace(l); l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		n++
		if !ciLines[l] {
			t.Errorf("the README's command %q is not a line of .ci/run", l)
		}
	}
	if n != 2 {
		t.Errorf("the set-up block has %d commands, want the main job and the test command", n)
	}
}

// Every relative link of the README and of docs/ names a file that exists.
func TestReadmeLinks(t *testing.T) {
	files, _ := filepath.Glob("docs/*.md")
	files = append(files, "README.md")
	link := regexp.MustCompile(`\]\(([^)#]+)(#[^)]*)?\)`)
	for _, f := range files {
		text, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range link.FindAllStringSubmatch(string(text), -1) {
			target := m[1]
			if strings.Contains(target, "://") {
				continue
			}
			if _, err := os.Stat(filepath.Join(filepath.Dir(f), target)); err != nil {
				t.Errorf("%s links to %s, which does not exist", f, target)
			}
		}
	}
}

// The README's count of modules is go.work's.
func TestReadmeModules(t *testing.T) {
	work, err := os.ReadFile("go.work")
	if err != nil {
		t.Fatal(err)
	}
	_, uses, _ := strings.Cut(string(work), "use (")
	uses, _, _ = strings.Cut(uses, ")")
	n := len(strings.Fields(uses))
	words := []string{"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"}
	if n >= len(words) || !strings.Contains(readme(t), "workspace (`go.work`) of "+words[n]+" modules") {
		t.Errorf("go.work uses %d modules; the README does not say %q", n, "of "+words[min(n, len(words)-1)]+" modules")
	}
}

// The README's library example runs, within its 20 lines, and prints what
// the README says it prints.
func TestReadmeLibraryExample(t *testing.T) {
	text := readme(t)
	code := fenced(t, text, "## The library in 20 lines", "go")
	if n := strings.Count(code, "\n"); n > 22 {
		t.Errorf("the library example has %d lines", n)
	}
	want := fenced(t, text, "It prints:", "")
	if testing.Short() {
		t.Skip("builds and runs the README's example")
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("no go command: %v", err)
	}
	body, ok := strings.CutPrefix(code, "import \"github.com/llmmetrics/llmmetrics\"\n")
	if !ok {
		t.Fatalf("the example does not start with the import of the package:\n%s", code)
	}
	src := "package main\n\nimport (\n\t\"fmt\"\n\t\"log\"\n\t\"os\"\n\t\"time\"\n\n\t\"github.com/llmmetrics/llmmetrics\"\n)\n" + body
	file := filepath.Join(t.TempDir(), "main.go")
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(gobin, "run", file).CombinedOutput()
	if err != nil {
		t.Fatalf("go run of the README's example: %v\n%s\n%s", err, out, src)
	}
	if string(out) != want {
		t.Errorf("the README's example prints\n%s\nthe README says\n%s", out, want)
	}
}

// readme returns README.md.
func readme(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// fenced returns the body of the first fenced block of the given language
// after the line that starts with after.
func fenced(t *testing.T, text, after, lang string) string {
	t.Helper()
	i := strings.Index(text, "\n"+after)
	if i < 0 {
		t.Fatalf("the README has no %q", after)
	}
	_, rest, ok := strings.Cut(text[i:], "\n```"+lang+"\n")
	body, _, closed := strings.Cut(rest, "\n```\n")
	if !ok || !closed {
		t.Fatalf("no ```%s block after %q", lang, after)
	}
	return body + "\n"
}
