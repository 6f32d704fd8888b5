package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// report --plot and --html on the sample run: every chart as SVG and PNG,
// and one page holding them inline.
func TestReportPictures(t *testing.T) {
	dir := t.TempDir()
	html := filepath.Join(dir, "report.html")
	code, out, errs := runCLI(t, "", "report", "--plot", filepath.Join(dir, "charts"), "--html", html, "../../testdata/sample_run.jsonl")
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, "requests: 240 offered", "the report is printed as usual")
	for _, name := range []string{"ttft_cdf", "tpot_cdf", "e2e_cdf", "ttft_spectrum", "tpot_spectrum", "e2e_spectrum", "gaps", "timeline"} {
		for _, ext := range []string{".svg", ".png"} {
			st, err := os.Stat(filepath.Join(dir, "charts", name+ext))
			require.NoError(t, err, name+ext)
			assert.Positive(t, st.Size())
		}
	}
	b, err := os.ReadFile(html)
	require.NoError(t, err)
	page := string(b)
	assert.Equal(t, 8, strings.Count(page, "<svg"))
	// The figures are tables, with their units in the headers and the
	// request holding each percentile beside it (nearest-rank, the
	// default): the sample run's 234 ok requests, its TTFT p50 by the
	// text report.
	for _, h := range []string{"Run and environment", "Workload", "Latency", "Throughput", "Goodput", "Server side"} {
		assert.True(t, strings.Contains(page, "<h2>"+h+"</h2>"), h)
	}
	for _, want := range []string{"<th>p50 (ms)</th>", "<td>TTFT</td><td>234</td>", "<td>100.360<small>req-092</small></td>"} {
		assert.True(t, strings.Contains(page, want), want)
	}
	for _, bad := range []string{"<pre>", "<script", "@font-face"} {
		assert.False(t, strings.Contains(page, bad), bad)
	}
	assert.Less(t, len(b), 300_000, "the sample run's page")

	code, _, errs = runCLI(t, "", "report", "--timings", "x.jsonl", "../../testdata/sample_run.jsonl")
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, "--timings draws the decomposition chart")
}

// --spectrum prints the metric's spectrum alone: the sample run's TTFT
// runs from 41.477 ms (its minimum, at quantile 0) to 350.264 ms (its
// maximum, at 1), over its 234 ok requests (the report's figures).
func TestReportSpectrum(t *testing.T) {
	code, out, errs := runCLI(t, "", "report", "--spectrum", "ttft", "../../testdata/sample_run.jsonl")
	require.Equal(t, 0, code, errs)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	assert.Equal(t, "# llmmetrics ttft spectrum over 234 ok requests, ms", lines[0])
	assert.Equal(t, "      41.477 0.000000000000          1           1.00", lines[3])
	assert.Contains(t, out, "     350.264 1.000000000000        234            inf")
	code, _, errs = runCLI(t, "", "report", "--spectrum", "itl", "../../testdata/sample_run.jsonl")
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, "want ttft, tpot, e2e or max_gap")
}

// A run's timings draw the decomposition chart: the fake's llama.cpp
// timings give the prefill alone.
func TestReportDecompositionChart(t *testing.T) {
	srv, _ := fakeLlama(t)
	dir := t.TempDir()
	out, timings := filepath.Join(dir, "run.jsonl"), filepath.Join(dir, "timings.jsonl")
	code, _, errs := runCLI(t, "", "run", "--url", srv.URL+"/v1/chat/completions", "--model", "tiny", "--requests", "6",
		"--concurrency", "2", "--prompts", promptsFile(t), "--max-tokens", "4", "--out", out, "--timings", timings)
	require.Equal(t, 0, code, errs)
	code, _, errs = runCLI(t, "", "report", "--plot", dir, "--timings", timings, out)
	require.Equal(t, 0, code, errs)
	svg, err := os.ReadFile(filepath.Join(dir, "decomposition.svg"))
	require.NoError(t, err)
	assert.Contains(t, string(svg), "prefill")
	assert.Contains(t, string(svg), "unknown, so not drawn: [queue residual client overhead]")
}

// sweep --plot and --html draw the level charts, with the attainment and
// its capacity bracket under an SLO.
func TestSweepPictures(t *testing.T) {
	dir := t.TempDir()
	var files []string
	for _, level := range []string{"1", "2"} {
		f := writeRunFile(t, dir, "c"+level+".jsonl", 100)
		files = append(files, "--level", f+"="+level, f)
	}
	// --level must come before the files: rebuild the argument order.
	args := []string{"sweep", "--slo", "ttft=200ms", "--plot", filepath.Join(dir, "charts"), "--html", filepath.Join(dir, "sweep.html")}
	var names []string
	for i := 0; i < len(files); i += 3 {
		args = append(args, files[i], files[i+1])
		names = append(names, files[i+2])
	}
	code, _, errs := runCLI(t, "", append(args, names...)...)
	require.Equal(t, 0, code, errs)
	for _, name := range []string{"sweep_ttft", "sweep_tpot", "throughput_ttft", "throughput_e2e", "attainment"} {
		_, err := os.Stat(filepath.Join(dir, "charts", name+".svg"))
		assert.NoError(t, err, name)
	}
	b, err := os.ReadFile(filepath.Join(dir, "sweep.html"))
	require.NoError(t, err)
	page := string(b)
	assert.Equal(t, 5, strings.Count(page, "<svg"))
	// The levels as a table: TTFT p50 at level 1 is the median of the
	// runs' 114 ms (one run: writeRunFile's TTFTs 100..129 ms, nearest
	// rank p50 at rank 15).
	for _, want := range []string{"<th>concurrency 1</th><th>concurrency 2</th>", "<td>ttft p50 (ms)</td><td>114<small>±?</small></td>", // one run: its spread unknown
		"<h2>Capacity</h2>"} {
		assert.True(t, strings.Contains(page, want), want)
	}
}

// The page's strata, records set aside and charts not drawn are HTML
// too: the sample run's strata as the text report gives them; a run of
// one-token requests has no TPOT chart, and the page says why.
func TestReportPageSections(t *testing.T) {
	dir := t.TempDir()
	html := filepath.Join(dir, "report.html")
	code, out, errs := runCLI(t, "", "report", "--stratify", "output=16,64", "--html", html, "../../testdata/sample_run.jsonl")
	require.Equal(t, 0, code, errs)
	require.Contains(t, out, "n ≤ 16   42   100.360   350.264    22.020    23.764   217.875   504.920")
	b, err := os.ReadFile(html)
	require.NoError(t, err)
	assert.True(t, strings.Contains(string(b), "<tr><td>n ≤ 16</td><td>42</td><td>100.360</td><td>350.264</td><td>22.020</td><td>23.764</td><td>217.875</td><td>504.920</td></tr>"))

	run := filepath.Join(dir, "run.jsonl")
	require.NoError(t, os.WriteFile(run, []byte(`{"id":"a","status":"ok","sent_ns":0,"chunk_arrivals_ns":[5000000],"completion_tokens":1}
{"id":"b","status":"ok","sent_ns":1000000,"chunk_arrivals_ns":[5000000],"completion_tokens":1}
{"id":"c","status":"ok","sent_ns":-5}
`), 0o644))
	plots := filepath.Join(dir, "charts")
	code, _, errs = runCLI(t, "", "report", "--lenient", "--html", html, "--plot", plots, run)
	require.Equal(t, 0, code, errs)
	b, err = os.ReadFile(html)
	require.NoError(t, err)
	page := string(b)
	// The third line is set aside: an ok record with neither its token
	// count nor any text time (one without a count but with its text
	// times is kept, issue 20).
	for _, want := range []string{"<h2>Set aside</h2>", "<td>3</td><td></td><td>c</td><td>first_text_ns</td><td>missing field: an ok record without completion_tokens needs chunk_arrivals_ns or first_text_ns and last_text_ns</td>", "<h2>Notes</h2>", "<p>Chart tpot distribution: not drawn, no data to draw: no TPOT value above 0.</p>"} {
		assert.True(t, strings.Contains(page, want), want)
	}
	notDrawn, err := os.ReadFile(filepath.Join(plots, "not_drawn.txt"))
	require.NoError(t, err)
	assert.Contains(t, string(notDrawn), "tpot spectrum: not drawn")
}

// diff --plot and --html draw A's and B's spectra of each latency,
// named by --label.
func TestDiffPictures(t *testing.T) {
	dir := t.TempDir()
	a, b := writeRunFile(t, dir, "a.jsonl", 100), writeRunFile(t, dir, "b.jsonl", 150)
	code, out, errs := runCLI(t, "", "diff", "--plot", filepath.Join(dir, "charts"), "--html", filepath.Join(dir, "diff.html"),
		"--label", "main", "--label", "branch", a, b)
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, "ttft p50")
	for _, name := range []string{"diff_ttft_spectrum", "diff_tpot_spectrum", "diff_e2e_spectrum"} {
		svg, err := os.ReadFile(filepath.Join(dir, "charts", name+".svg"))
		require.NoError(t, err, name)
		assert.Contains(t, string(svg), "A: main (n=30)")
		assert.Contains(t, string(svg), "B: branch (n=30)")
	}
	page, err := os.ReadFile(filepath.Join(dir, "diff.html"))
	require.NoError(t, err)
	assert.Equal(t, 3, strings.Count(string(page), "<svg"))
}
