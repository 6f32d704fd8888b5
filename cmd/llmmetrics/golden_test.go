package main

import (
	"crypto/sha256"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The golden files of the command's outputs: one file a case under
// testdata/golden, holding the command line, the exit status, standard
// output and standard error, byte for byte. They prove that a change
// meant to move code changed no output; a change meant to change an
// output shows as a diff of its golden files. See testdata/golden/README.md.
//
//	go test ./cmd/llmmetrics -run TestGolden -update

var update = flag.Bool("update", false, "rewrite the golden files of TestGolden under testdata/golden")

const (
	goldenDir   = "testdata/golden"
	goldenIn    = "testdata/golden/input" // the inputs of the cases, committed
	repoData    = "../../testdata"
	formatData  = "../../formats/testdata"
	realdataDir = "../../../shared/realdata" // the shared real files, never copied here
	// goldenMax is the largest output kept whole; a larger one keeps only
	// its SHA-256, in a .sum file.
	goldenMax = 50 << 10
)

// A goldenCase is one invocation of the command and the golden file of its
// outputs.
type goldenCase struct {
	name  string // the golden file's path under testdata/golden, without .txt or .sum
	args  []string
	stdin string // a file given on standard input, or ""
}

// real reports whether the case reads ../shared/realdata.
func (c goldenCase) real() bool { return strings.HasPrefix(c.name, "realdata/") }

func TestGolden(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector: the goldens check outputs, run without it; the code they run is raced by its own tests")
	}
	cases := goldenCases(t)
	haveReal := dirExists(realdataDir)
	names := map[string]bool{}
	for _, c := range cases {
		if names[c.name] {
			t.Fatalf("two cases are named %s", c.name)
		}
		names[c.name] = true
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.real() && !haveReal {
				t.Skipf("%s is absent: the real files of this case live there", realdataDir)
			}
			checkGolden(t, c)
		})
	}
	// A golden file no case writes is stale: it would pass unnoticed.
	var stale []string
	err := filepath.WalkDir(goldenDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			if d != nil && d.IsDir() && p == goldenIn {
				return filepath.SkipDir
			}
			return err
		}
		ext := filepath.Ext(p)
		if ext != ".txt" && ext != ".sum" {
			return nil
		}
		name := filepath.ToSlash(strings.TrimSuffix(strings.TrimPrefix(p, goldenDir+string(filepath.Separator)), ext))
		if names[name] || strings.HasPrefix(name, "realdata/") && !haveReal {
			return nil
		}
		stale = append(stale, p)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range stale {
		if *update {
			if err := os.Remove(p); err != nil {
				t.Error(err)
			}
			continue
		}
		t.Errorf("%s: no case writes this golden file (remove it, or run with -update)", p)
	}
}

// checkGolden runs one case and compares its outputs with its golden file,
// or rewrites the file with -update.
func checkGolden(t *testing.T, c goldenCase) {
	stdin := ""
	if c.stdin != "" {
		b, err := os.ReadFile(c.stdin)
		if err != nil {
			t.Fatal(err)
		}
		stdin = string(b)
	}
	code, stdout, stderr := runGolden(t, c, stdin)
	// Twice, for determinism: the same run gives the same bytes.
	code2, stdout2, stderr2 := runGolden(t, c, stdin)
	if code2 != code || stdout2 != stdout || stderr2 != stderr {
		t.Fatalf("two runs of %s differ: %s", commandLine(c), firstDiff(goldenText(c, code, stdout, stderr, false), goldenText(c, code2, stdout2, stderr2, false)))
	}
	big := len(stdout) > goldenMax
	got := goldenText(c, code, stdout, stderr, big)
	txt, sum := filepath.Join(goldenDir, c.name+".txt"), filepath.Join(goldenDir, c.name+".sum")
	file, other := txt, sum
	if big {
		file, other = sum, txt
	}
	if *update {
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Remove(other); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (run with -update to write it)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs from %s (run with -update to accept; review with git diff):\n%s", commandLine(c), file, firstDiff(string(want), got))
	}
}

// runGolden runs a case. An argument holding $TMP names a file or folder
// in a new temporary folder: the folder's path reads $TMP in the outputs,
// and what the command wrote there is added to standard output, after a
// line "-- files --", one file a line: its path under $TMP, its size and
// its SHA-256 (a PNG's name only: its bytes are a rasterization, which
// may differ in the last bit between architectures).
func runGolden(t *testing.T, c goldenCase, stdin string) (code int, stdout, stderr string) {
	t.Helper()
	tmp := ""
	args := slices.Clone(c.args)
	for i, a := range args {
		if strings.Contains(a, "$TMP") {
			if tmp == "" {
				tmp = t.TempDir()
			}
			args[i] = strings.ReplaceAll(a, "$TMP", tmp)
		}
	}
	code, stdout, stderr = runCLI(t, stdin, args...)
	if tmp == "" {
		return code, stdout, stderr
	}
	var b strings.Builder
	b.WriteString(strings.ReplaceAll(stdout, tmp, "$TMP"))
	b.WriteString("-- files --\n")
	err := filepath.WalkDir(tmp, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(tmp, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if filepath.Ext(p) == ".png" {
			fmt.Fprintf(&b, "%s\n", rel)
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "%s %d bytes sha256 %x\n", rel, len(data), sha256.Sum256(data))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return code, b.String(), strings.ReplaceAll(stderr, tmp, "$TMP")
}

// goldenText is the content of a golden file: the command line and exit
// status as comment lines, then standard output and standard error, each
// under a line of its own. An output that does not end in a newline says
// so, as diff does; with big, standard output is kept as its SHA-256.
func goldenText(c goldenCase, code int, stdout, stderr string, big bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n# exit status %d\n", commandLine(c), code)
	section := func(name, s string) {
		fmt.Fprintf(&b, "-- %s --\n%s", name, s)
		if s != "" && !strings.HasSuffix(s, "\n") {
			b.WriteString("\n\\ No newline at end\n")
		}
	}
	if big {
		fmt.Fprintf(&b, "-- stdout sha256 --\n%x %d bytes\n", sha256.Sum256([]byte(stdout)), len(stdout))
	} else {
		section("stdout", stdout)
	}
	section("stderr", stderr)
	return b.String()
}

// commandLine is the case's command line as a shell would take it, run
// from cmd/llmmetrics.
func commandLine(c goldenCase) string {
	parts := []string{"llmmetrics"}
	for _, a := range c.args {
		if a == "" || strings.ContainsAny(a, " \t\n'\"\\$`()<>|&;*?[]#~!{}") {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		parts = append(parts, a)
	}
	if c.stdin != "" {
		parts = append(parts, "<", c.stdin)
	}
	return strings.Join(parts, " ")
}

// firstDiff describes where got first differs from want, by line, with
// a little context.
func firstDiff(want, got string) string {
	w, g := strings.SplitAfter(want, "\n"), strings.SplitAfter(got, "\n")
	i := 0
	for i < len(w) && i < len(g) && w[i] == g[i] {
		i++
	}
	var b strings.Builder
	fmt.Fprintf(&b, "first difference at line %d (want %d lines, got %d):\n", i+1, len(w), len(g))
	for k := max(0, i-2); k < i; k++ {
		fmt.Fprintf(&b, "   %q\n", w[k])
	}
	for k := i; k < min(len(w), i+3); k++ {
		fmt.Fprintf(&b, " - %q\n", w[k])
	}
	for k := i; k < min(len(g), i+3); k++ {
		fmt.Fprintf(&b, " + %q\n", g[k])
	}
	return b.String()
}

func dirExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// glob returns the files matching pattern, sorted, failing the test when
// there are none.
func glob(t *testing.T, pattern string) []string {
	t.Helper()
	files, err := filepath.Glob(pattern)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatalf("no file matches %s", pattern)
	}
	slices.Sort(files)
	return files
}

// in returns the path of an input file of the cases.
func in(name string) string { return goldenIn + "/" + name }

// goldenCases lists every case: the repository's test data (report in
// text and JSON on every file, and the flags' variants on the sample run),
// committed inputs for diff, sweep, merge, truncated files and errors, and
// the files of ../shared/realdata (named realdata/…; listed here only when
// the folder is present).
func goldenCases(t *testing.T) []goldenCase {
	var cs []goldenCase
	add := func(name string, args ...string) { cs = append(cs, goldenCase{name: name, args: args}) }
	both := func(name string, args ...string) { // text and --json
		add(name, args...)
		add(name+".json", append([]string{args[0], "--json"}, args[1:]...)...)
	}
	sample := repoData + "/sample_run.jsonl"
	seeds := append(glob(t, repoData+"/seeds/*.csv"), glob(t, repoData+"/seeds/*.jsonl")...)

	// report on every file of the repository's test data (the sample run's
	// report is the README's first command).
	for _, f := range append(glob(t, repoData+"/*.jsonl"), seeds...) {
		both("report/"+filepath.Base(f), "report", f)
	}
	for _, f := range glob(t, formatData+"/*") {
		both("report/"+filepath.Base(f), "report", f)
		both("reconcile/"+filepath.Base(f), "reconcile", f)
		both("reconcile/linear-"+filepath.Base(f), "reconcile", "--method", "linear", f)
	}
	genai := formatData + "/genai_perf_profile_export.json"
	both("report/from-genai-perf", "report", "--from", "genai-perf", genai)
	both("dialect/"+filepath.Base(genai), "report", "--dialect", "genai-perf", genai)

	// report's flags, on the sample run unless said.
	both("report/method-linear", "report", "--method", "linear", "--percentiles", "50,90,99.9", sample)
	both("report/slo", "report", "--slo", "ttft=200ms,tpot=30ms", sample)
	both("report/slo-all-strict", "report", "--slo", "ttft=200ms,tpot=30ms,e2e=5s,max_gap=300ms", "--slo-strict", sample)
	both("report/slo-window", "report", "--slo", "ttft=500ms,tpot=50ms", "--window", "10s", repoData+"/seeds/goodput_cohort.csv")
	both("report/window", "report", "--window", "60s", sample)
	both("report/warmup-40", "report", "--warmup", "40", sample)
	both("report/warmup-5s", "report", "--warmup", "5s", sample)
	both("report/warmup-auto", "report", "--warmup", "auto", sample)
	both("report/stratify-output", "report", "--stratify", "output=16,64,256", sample)
	both("report/stratify-prompt", "report", "--stratify", "prompt=1000", sample)
	add("report/spectrum-ttft", "report", "--spectrum", "ttft", sample)
	add("report/spectrum-max_gap", "report", "--spectrum", "max_gap", sample)
	both("report/linear-opening_trace", "report", "--method", "linear", "--percentiles", "50,99.9", repoData+"/seeds/opening_trace.jsonl")
	both("report/label", "report", "--label", "before", sample)

	// Runs taken by llmmetrics run (see the README): closed and open loop,
	// truncated, and two shares of one run merged.
	for _, f := range []string{"c1-0.jsonl", "c4-0.jsonl", "open.jsonl", "truncated.jsonl", "smallvllm.json", "sessions-cancelled.jsonl"} {
		both("report/"+f, "report", in(f))
	}
	both("report/merge", "report", "--merge", in("merge-a.jsonl"), in("merge-b.jsonl"))
	both("report/open-warmup", "report", "--warmup", "2", in("open.jsonl"))
	both("report/from-vllm", "report", "--from", "vllm", in("smallvllm.json"))
	both("report/strict-vllm", "report", "--strict", in("smallvllm.json"))
	both("dialect/smallvllm", "report", "--dialect", "vllm", in("smallvllm.json"))
	both("dialect/smallvllm-percentiles-slo", "report", "--dialect", "vllm", "--percentiles", "50,99", "--slo", "ttft=250ms", in("smallvllm.json"))
	both("reconcile/smallvllm", "reconcile", in("smallvllm.json"))
	both("reconcile/smallvllm-linear", "reconcile", "--method", "linear", in("smallvllm.json"))

	// --lenient on a bad file, from a file and from standard input.
	both("report/lenient-bad_row", "report", "--lenient", in("bad_row.csv"))
	cs = append(cs, goldenCase{name: "report/lenient-stdin", args: []string{"report", "--lenient", "-"}, stdin: in("bad_row.csv")})
	cs = append(cs, goldenCase{name: "report/stdin", args: []string{"report", "--json"}, stdin: repoData + "/seeds/tpot_exercise.csv"})

	// The gate: status 3 after the report when the run crosses a condition.
	add("gate/fail-if-max-ttft", "report", "--fail-if", "max(ttft)>350ms", "--fail-if", "min(ttft)<40ms", sample)
	add("gate/fail-if-pass", "report", "--fail-if", "max(ttft)>351ms", "--fail-if", "p99.9(ttft)>1s", sample)
	both("gate/fail-below", "report", "--slo", "ttft=351ms", "--fail-below", "0.98", sample)
	add("gate/fail-below-pass", "report", "--slo", "ttft=351ms", "--fail-below", "0.97", sample)
	add("gate/error-rate", "report", "--fail-if", "error_rate>0.01", sample)
	add("gate/from-scheduled", "report", "--fail-if", "p99(ttft_from_scheduled)>1ms", in("open.jsonl"))
	add("gate/lacks-figure", "report", "--fail-if", "p99(itl)>1s", repoData+"/seeds/goodput_cohort.csv")

	// One-line errors (status 1) and usage errors (status 2).
	add("errors/missing-file", "report", "no/such/file.csv")
	add("errors/bad-row", "report", in("bad_row.csv"))
	cs = append(cs, goldenCase{name: "errors/bad-row-stdin", args: []string{"report"}, stdin: in("bad_row.csv")})
	add("errors/cut-vllm", "report", "--from", "vllm", in("cut_vllm.json"))
	add("errors/dialect-mismatch", "report", "--dialect", "aiperf", in("smallvllm.json"))
	add("errors/from-dialect-mismatch", "report", "--from", "vllm", "--dialect", "aiperf", in("smallvllm.json"))
	add("errors/dialect-method", "report", "--dialect", "vllm", "--method", "linear", in("smallvllm.json"))
	add("errors/reconcile-own-format", "reconcile", repoData+"/seeds/tpot_exercise.csv")
	add("errors/two-files", "report", sample, sample)
	add("errors/merge-one", "report", "--merge", in("merge-a.jsonl"))
	add("errors/method", "report", "--method", "type7", sample)
	add("errors/percentiles", "report", "--percentiles", "50,101", sample)
	add("errors/slo", "report", "--slo", "ttft=fast", sample)
	add("errors/slo-strict", "report", "--slo-strict", sample)
	add("errors/window", "report", "--window", "0s", sample)
	add("errors/warmup", "report", "--warmup", "soon", sample)
	add("errors/stratify", "report", "--stratify", "output=64,16", sample)
	add("errors/fail-below-no-slo", "report", "--fail-below", "0.9", sample)
	add("errors/fail-if-no-comparison", "report", "--fail-if", "p99(ttft)", sample)
	add("errors/unknown-flag", "report", "--bogus", sample)
	add("errors/unknown-command", "reprot")
	add("errors/no-command")
	add("errors/compare", "compare", sample)
	add("errors/diff-one-side", "diff", sample)
	add("errors/diff-twice", "diff", in("c1-0.jsonl")+","+in("c1-0.jsonl"), in("c4-0.jsonl"))
	add("errors/diff-missing", "diff", in("c1-0.jsonl"), in("missing.jsonl"))
	add("errors/sweep-no-level", "sweep", sample)
	add("errors/reconcile-from", "reconcile", "--from", "nosuch", in("smallvllm.json"))

	// diff: repeats of one setup a side (3 + 3 runs), and single files.
	c1 := strings.Join([]string{in("c1-0.jsonl"), in("c1-1.jsonl"), in("c1-2.jsonl")}, ",")
	c4 := strings.Join([]string{in("c4-0.jsonl"), in("c4-1.jsonl"), in("c4-2.jsonl")}, ",")
	both("diff/c1-c4", "diff", c1, c4)
	both("diff/c1-c4-slo", "diff", "--slo", "ttft=1ms", "--percentiles", "50,99", c1, c4)
	both("diff/c1-c4-alpha", "diff", "--alpha", "0.2", "--method", "linear", c1, c4)
	both("diff/seeds", "diff", repoData+"/seeds/tpot_exercise.csv", repoData+"/seeds/goodput_cohort.csv")
	both("diff/sample-self", "diff", sample, sample)
	both("diff/sample-warmup", "diff", "--warmup", "auto", sample, in("open.jsonl"))

	// sweep: levels from the run headers, from --level, with an SLO.
	var runs []string
	for _, c := range []string{"1", "4"} {
		for k := range 3 {
			runs = append(runs, in(fmt.Sprintf("c%s-%d.jsonl", c, k)))
		}
	}
	both("sweep/headers", append([]string{"sweep"}, runs...)...)
	both("sweep/slo", append([]string{"sweep", "--slo", "ttft=1ms"}, runs...)...)
	both("sweep/slo-target", append([]string{"sweep", "--slo", "ttft=1ms,tpot=50ms", "--target", "0.5", "--method", "linear"}, runs...)...)
	both("sweep/levels", "sweep", "--kind", "rate", "--level", repoData+"/seeds/tpot_exercise.csv=2", "--level", repoData+"/seeds/goodput_cohort.csv=4",
		"--level", sample+"=8", repoData+"/seeds/tpot_exercise.csv", repoData+"/seeds/goodput_cohort.csv", sample)

	// The charts and the HTML page (their SVG and HTML by SHA-256).
	add("charts/report", "report", "--plot", "$TMP/charts", "--html", "$TMP/report.html", sample)
	add("charts/report-slo-label", "report", "--slo", "ttft=200ms,tpot=30ms", "--label", "sample", "--plot", "$TMP/charts", in("open.jsonl"))
	add("charts/diff", "diff", "--plot", "$TMP/charts", "--html", "$TMP/diff.html", "--label", "c1", "--label", "c4", c1, c4)
	add("charts/sweep", append([]string{"sweep", "--slo", "ttft=1ms", "--plot", "$TMP/charts", "--html", "$TMP/sweep.html"}, runs...)...)

	// help and the conformance cases' list.
	add("help/overview", "help")
	for _, c := range commands {
		add("help/"+c.name, "help", c.name)
	}
	add("conformance/list", "conformance", "list")
	add("conformance/export", "conformance", "export", "$TMP/cases")

	return append(cs, realdataCases()...)
}

// realdataCases are the cases over ../shared/realdata: report (text,
// JSON and each tool's own dialect) and reconcile on every file of the
// tools the command reads, whether it reads it or says why not; diff and
// sweep over runs of the same tool; inference-perf's stage reports by
// sweep; the Prometheus scrapes by server. Their file names are fixed
// here, so that a missing folder skips them rather than changing the list.
func realdataCases() []goldenCase {
	var cs []goldenCase
	add := func(name string, args ...string) { cs = append(cs, goldenCase{name: "realdata/" + name, args: args}) }
	both := func(name string, args ...string) {
		add(name, args...)
		add(name+".json", append([]string{args[0], "--json"}, args[1:]...)...)
	}
	r := func(p string) string { return realdataDir + "/" + p }
	tools := []struct {
		tool  string
		files []string
	}{
		{"aiperf", []string{"ai-dynamo__aiperf__run1_profile_export.jsonl", "ai-dynamo__aiperf__run1_profile_export_aiperf.csv", "ai-dynamo__aiperf__run1_profile_export_aiperf.json"}},
		{"guidellm", []string{"neuralmagic__guidellm__benchmarks_stripped.json", "rsevilla87__guidellm-results-parser__benchmarks.json"}},
		{"llmperf", []string{
			"ray-project__llmperf-leaderboard__bedrock_13b_individual_responses.json", "ray-project__llmperf-leaderboard__bedrock_13b_summary.json",
			"ray-project__llmperf-leaderboard__fireworks_7b_individual_responses.json", "ray-project__llmperf-leaderboard__fireworks_7b_summary.json",
			"ray-project__llmperf-leaderboard__together_70b_individual_responses.json", "ray-project__llmperf-leaderboard__together_70b_summary.json"}},
		{"sglang", []string{"datacrunch-research__h200-benchmarks__llama33-70b-online.jsonl"}},
		{"vllm", []string{
			"pillaiharish__llm-serving-performance-lab__day05_large_i2048_o256_c4.json", "pillaiharish__llm-serving-performance-lab__day06_c16_i128_o64_n64.json",
			"surajssd__llm-k8s__deepseek-v25-qps16.json", "surajssd__llm-k8s__llama33-70b-tp4pp2-qpsinf.json", "surajssd__llm-k8s__llama33-70b-tp8-qps01.json"}},
	}
	for _, tl := range tools {
		for _, f := range tl.files {
			p := r(tl.tool + "/" + f)
			if summaryOnly(f) {
				add("report/"+tl.tool+"/"+f, "report", p) // the one-line error that names the file's kind
				continue
			}
			both("report/"+tl.tool+"/"+f, "report", p)
			both("dialect/"+tl.tool+"/"+f, "report", "--dialect", tl.tool, p)
			both("reconcile/"+tl.tool+"/"+f, "reconcile", p)
		}
	}
	qps01, qps16 := r("vllm/surajssd__llm-k8s__llama33-70b-tp8-qps01.json"), r("vllm/surajssd__llm-k8s__deepseek-v25-qps16.json")
	qpsinf := r("vllm/surajssd__llm-k8s__llama33-70b-tp4pp2-qpsinf.json")
	both("report/vllm-slo-linear", "report", "--slo", "ttft=300ms,tpot=50ms", "--method", "linear", qps01)
	both("report/vllm-strict", "report", "--strict", qpsinf)
	both("report/guidellm-benchmark-1", "report", "--benchmark", "1", r("guidellm/rsevilla87__guidellm-results-parser__benchmarks.json"))
	both("dialect/vllm-percentiles-slo", "report", "--dialect", "vllm", "--percentiles", "50,90,99", "--slo", "ttft=300ms,tpot=50ms", qps01)
	both("reconcile/vllm-linear", "reconcile", "--method", "linear", qps01)
	add("gate/vllm-fail-if", "report", "--fail-if", "p99(ttft)>100ms", "--fail-if", "error_rate>0.5", qps16)

	// diff of two runs of a tool.
	both("diff/vllm-qps01-qps16", "diff", qps01, qps16)
	both("diff/vllm-self", "diff", qps01, qps01)
	both("diff/llmperf-fireworks-together", "diff", "--slo", "ttft=1s",
		r("llmperf/ray-project__llmperf-leaderboard__fireworks_7b_individual_responses.json"),
		r("llmperf/ray-project__llmperf-leaderboard__together_70b_individual_responses.json"))
	day05, day06 := r("vllm/pillaiharish__llm-serving-performance-lab__day05_large_i2048_o256_c4.json"), r("vllm/pillaiharish__llm-serving-performance-lab__day06_c16_i128_o64_n64.json")
	both("diff/vllm-day05-day06", "diff", day05, day06)
	add("charts/vllm-day06", "report", "--plot", "$TMP/charts", "--html", "$TMP/report.html", day06)

	// sweep: vLLM files at their rates; inference-perf's stages; a
	// GuideLLM file; AIPerf's run beside its summary.
	both("sweep/vllm-rate", "sweep", "--kind", "rate", "--level", qps01+"=1", "--level", qps16+"=16", "--slo", "ttft=300ms", qps01, qps16)
	both("sweep/vllm-rate-linear", "sweep", "--method", "linear", "--kind", "rate", "--level", qps01+"=1", "--level", qps16+"=16", qps01, qps16)
	both("sweep/vllm-concurrency", "sweep", day05, day06)
	var stages []string
	for _, n := range []string{"0", "2", "4"} {
		p := r("prometheus/kubernetes-sigs__inference-perf__vllm_stage_" + n)
		stages = append(stages, p+"_lifecycle_metrics.json", p+"_prometheus_metrics.json")
	}
	both("sweep/inference-perf", append([]string{"sweep"}, stages...)...)
	add("sweep/inference-perf-slo", append([]string{"sweep", "--slo", "ttft=100ms"}, stages...)...)
	both("sweep/guidellm", "sweep", r("guidellm/rsevilla87__guidellm-results-parser__benchmarks.json"))
	both("sweep/aiperf", "sweep", r("aiperf/ai-dynamo__aiperf__run1_profile_export.jsonl"))
	for _, p := range stages {
		add("report/inference-perf/"+filepath.Base(p), "report", p) // read by sweep only: the error says so
	}

	// server: two successive scrapes of one vLLM server.
	snap := func(n string) string {
		m, _ := filepath.Glob(r("prometheus/Ahasannn__hardware-aware-router__snapshot" + n + "_*.txt"))
		if len(m) == 1 {
			return m[0]
		}
		return r("prometheus/Ahasannn__hardware-aware-router__snapshot" + n + "_absent.txt")
	}
	idle := r("prometheus/Ahasannn__hardware-aware-router__vllm_metrics_idle.txt")
	both("server/snapshot1-2", "server", "--before", snap("1"), "--after", snap("2"), "--elapsed", "10s")
	both("server/snapshot1-2-records", "server", "--before", snap("1"), "--after", snap("2"), "--elapsed", "10s",
		"--select", "model_name=Qwen/Qwen2.5-3B-Instruct", "--records", in("client.csv"))
	both("server/snapshot1-6", "server", "--before", snap("1"), "--after", snap("6"), "--elapsed", "60s")
	add("server/idle-1", "server", "--before", idle, "--after", snap("1"), "--elapsed", "5s")
	add("server/reset", "server", "--before", snap("2"), "--after", idle, "--elapsed", "1s")
	return cs
}

// summaryOnly reports whether a real file holds a tool's summary and no
// per-request data, which report refuses with a line that says so.
func summaryOnly(name string) bool {
	return strings.HasSuffix(name, "_summary.json") || strings.HasSuffix(name, "_aiperf.csv") || strings.HasSuffix(name, "_aiperf.json") ||
		name == "datacrunch-research__h200-benchmarks__llama33-70b-online.jsonl" // SGLang's bench_serving output without --output-details
}
