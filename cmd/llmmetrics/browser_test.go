package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// browser returns a headless browser's path: LLMMETRICS_BROWSER, or
// chromium or Chrome on PATH. Without one the test is skipped.
func browser(t *testing.T) string {
	if b := os.Getenv("LLMMETRICS_BROWSER"); b != "" {
		return b
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("no headless browser: install chromium (.ci/run does: apt-get install chromium) or set LLMMETRICS_BROWSER")
	return ""
}

// measureCharts is run in the page: for each chart, the boxes of its
// texts as the browser laid them out (getBoundingClientRect, which holds
// the transforms), the SVG's own box, and the largest row of numbers
// sharing a baseline (the x axis's tick labels, centred on their ticks)
// and column of numbers sharing a right edge (the y axis's, right-aligned).
const measureCharts = `Array.from(document.querySelectorAll("figure")).map(f => {
	const svg = f.querySelector("svg"), s = svg.getBoundingClientRect();
	const texts = Array.from(svg.querySelectorAll("text")).map(t => {
		const r = t.getBoundingClientRect();
		return {text: t.textContent, left: r.left, top: r.top, right: r.right, bottom: r.bottom, ok: t.getBBox().width > 0};
	});
	const numbers = texts.filter(t => /^-?[0-9.]+$/.test(t.text));
	const most = key => Math.max(0, ...numbers.map(a => numbers.filter(b => Math.abs(key(a) - key(b)) < 1.5).length));
	return {id: f.id, svg: {left: s.left, top: s.top, right: s.right, bottom: s.bottom}, texts: texts,
		xTicks: most(t => t.bottom), yTicks: most(t => t.right)};
})`

type box struct{ Left, Top, Right, Bottom float64 }

type measured struct {
	ID    string
	SVG   box
	Texts []struct {
		Text string
		box
		OK bool
	}
	XTicks, YTicks int
}

// TestHTMLInBrowser opens the pages of the sample run's report, a vLLM
// file's report, a sweep of three levels and a diff in a real headless
// browser: each loads with no console error and no network request; in
// every chart no two texts overlap, every text lies inside its SVG, and
// each axis has at least three tick labels. A screenshot of each page is
// kept in LLMMETRICS_ARTEFACTS (or the test's temporary directory), and
// one of each chart as the browser drew it, PAGE-CHART.png.
func TestHTMLInBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	if raceEnabled {
		t.Skip("measures a layout, where the race detector has nothing to watch; run without -race")
	}
	bin := browser(t)
	dir := t.TempDir()
	artefacts := os.Getenv("LLMMETRICS_ARTEFACTS")
	if artefacts == "" {
		artefacts = dir
	}
	require.NoError(t, os.MkdirAll(artefacts, 0o755))

	type htmlPage struct {
		file   string
		charts int
	}
	var pages []htmlPage
	html := func(name string, charts int, args ...string) {
		p := filepath.Join(dir, name+".html")
		args = append([]string{args[0], "--html", p}, args[1:]...)
		code, _, errs := runCLI(t, "", args...)
		require.Equal(t, 0, code, errs)
		pages = append(pages, htmlPage{p, charts})
	}
	html("report", 8, "report", "../../testdata/sample_run.jsonl")
	vllm := "../../../shared/realdata/vllm/pillaiharish__llm-serving-performance-lab__day06_c16_i128_o64_n64.json"
	if _, err := os.Stat(vllm); err == nil {
		html("vllm", 8, "report", "--slo", "ttft=500ms", vllm)
	} else {
		t.Log("../shared/realdata is absent: no vLLM page")
	}
	a, b, c := writeRunFile(t, dir, "c1.jsonl", 100), writeRunFile(t, dir, "c2.jsonl", 150), writeRunFile(t, dir, "c4.jsonl", 250)
	html("sweep", 5, "sweep", "--slo", "ttft=170ms", "--level", a+"=1", "--level", b+"=2", "--level", c+"=4", a, b, c)
	html("diff", 3, "diff", a, b)

	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(bin), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.WindowSize(1280, 1024))
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancel()
	for _, pg := range pages {
		t.Run(filepath.Base(pg.file), func(t *testing.T) {
			ctx, cancel := chromedp.NewContext(actx)
			defer cancel()
			ctx, cancelT := context.WithTimeout(ctx, 90*time.Second)
			defer cancelT()
			var mu sync.Mutex
			var problems, requests []string
			chromedp.ListenTarget(ctx, func(ev any) {
				mu.Lock()
				defer mu.Unlock()
				switch e := ev.(type) {
				case *runtime.EventConsoleAPICalled:
					if e.Type == runtime.APITypeError || e.Type == runtime.APITypeWarning {
						problems = append(problems, string(e.Type))
					}
				case *runtime.EventExceptionThrown:
					problems = append(problems, e.ExceptionDetails.Text)
				case *network.EventRequestWillBeSent:
					requests = append(requests, e.Request.URL)
				}
			})
			var charts []measured
			var shot []byte
			url := "file://" + pg.file
			require.NoError(t, chromedp.Run(ctx,
				network.Enable(),
				chromedp.Navigate(url),
				chromedp.WaitReady("body"),
				chromedp.Evaluate(measureCharts, &charts),
				chromedp.FullScreenshot(&shot, 100), // PNG
			))
			shotPath := filepath.Join(artefacts, strings.TrimSuffix(filepath.Base(pg.file), ".html")+".png")
			require.NoError(t, os.WriteFile(shotPath, shot, 0o644))
			t.Logf("screenshot: %s", shotPath)
			require.Len(t, charts, pg.charts)
			name := strings.TrimSuffix(filepath.Base(pg.file), ".html")
			for _, c := range charts {
				var fig []byte
				require.NoError(t, chromedp.Run(ctx, chromedp.ActionFunc(func(ctx context.Context) (err error) {
					fig, err = page.CaptureScreenshot().WithCaptureBeyondViewport(true).WithClip(&page.Viewport{
						X: c.SVG.Left, Y: c.SVG.Top, Width: c.SVG.Right - c.SVG.Left, Height: c.SVG.Bottom - c.SVG.Top, Scale: 1}).Do(ctx)
					return err
				})))
				require.NoError(t, os.WriteFile(filepath.Join(artefacts, name+"-"+c.ID+".png"), fig, 0o644))
				for _, p := range layoutProblems(c) {
					t.Errorf("%s: %s", c.ID, p)
				}
			}
			assert.Greater(t, len(shot), 10_000, "a screenshot with something in it")
			// The listener holds mu while chromedp waits on it: taken only
			// when the browser's work is done.
			mu.Lock()
			defer mu.Unlock()
			assert.Empty(t, problems, "console errors")
			for _, r := range requests {
				assert.Equal(t, url, r, "the page fetches nothing but itself")
			}
		})
	}
}

// layoutProblems lists what is wrong with a chart as the browser laid it
// out: a text outside its SVG, two texts that overlap, an axis with fewer
// than three tick labels. Half a pixel is allowed for rounding.
func layoutProblems(c measured) []string {
	const slack = 0.5
	var out []string
	if c.SVG.Right-c.SVG.Left < 100 || c.SVG.Bottom-c.SVG.Top < 50 {
		out = append(out, fmt.Sprintf("drawn at %.0f × %.0f px", c.SVG.Right-c.SVG.Left, c.SVG.Bottom-c.SVG.Top))
	}
	for i, a := range c.Texts {
		if !a.OK {
			out = append(out, fmt.Sprintf("text %q has no width", a.Text))
		}
		if a.Left < c.SVG.Left-slack || a.Right > c.SVG.Right+slack || a.Top < c.SVG.Top-slack || a.Bottom > c.SVG.Bottom+slack {
			out = append(out, fmt.Sprintf("text %q at %+v outside the SVG %+v", a.Text, a.box, c.SVG))
		}
		for _, b := range c.Texts[i+1:] {
			w := min(a.Right, b.Right) - max(a.Left, b.Left)
			h := min(a.Bottom, b.Bottom) - max(a.Top, b.Top)
			if w > slack && h > slack {
				out = append(out, fmt.Sprintf("texts %q and %q overlap by %.1f × %.1f px", a.Text, b.Text, w, h))
			}
		}
	}
	if c.XTicks < 3 {
		out = append(out, fmt.Sprintf("x axis with %d tick labels", c.XTicks))
	}
	if c.YTicks < 3 {
		out = append(out, fmt.Sprintf("y axis with %d tick labels", c.YTicks))
	}
	return out
}
