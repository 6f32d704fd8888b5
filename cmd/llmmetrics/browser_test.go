package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
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

// TestHTMLInBrowser opens the report and sweep pages in a real headless
// browser: each loads with no console error and no network request, and
// every chart is drawn with a size. A screenshot of each is kept in
// LLMMETRICS_ARTEFACTS (or the test's temporary directory).
func TestHTMLInBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	bin := browser(t)
	dir := t.TempDir()
	artefacts := os.Getenv("LLMMETRICS_ARTEFACTS")
	if artefacts == "" {
		artefacts = dir
	}
	require.NoError(t, os.MkdirAll(artefacts, 0o755))

	// The report of the sample run, and a sweep of two levels.
	report := filepath.Join(dir, "report.html")
	code, _, errs := runCLI(t, "", "report", "--html", report, "../../testdata/sample_run.jsonl")
	require.Equal(t, 0, code, errs)
	a, b := writeRunFile(t, dir, "c1.jsonl", 100), writeRunFile(t, dir, "c2.jsonl", 150)
	sweep := filepath.Join(dir, "sweep.html")
	code, _, errs = runCLI(t, "", "sweep", "--slo", "ttft=170ms", "--html", sweep, "--level", a+"=1", "--level", b+"=2", a, b)
	require.Equal(t, 0, code, errs)

	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(bin), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.WindowSize(1280, 1024))
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancel()
	for _, page := range []struct {
		file   string
		charts int
	}{{report, 5}, {sweep, 4}} {
		t.Run(filepath.Base(page.file), func(t *testing.T) {
			ctx, cancel := chromedp.NewContext(actx)
			defer cancel()
			ctx, cancelT := context.WithTimeout(ctx, 60*time.Second)
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
			var sizes [][]float64
			var shot []byte
			url := "file://" + page.file
			require.NoError(t, chromedp.Run(ctx,
				network.Enable(),
				chromedp.Navigate(url),
				chromedp.WaitReady("body"),
				chromedp.Evaluate(`Array.from(document.querySelectorAll("svg")).map(s => { const r = s.getBoundingClientRect(); return [r.width, r.height] })`, &sizes),
				chromedp.FullScreenshot(&shot, 80), // JPEG below quality 100
			))
			require.NoError(t, os.WriteFile(filepath.Join(artefacts, strings.TrimSuffix(filepath.Base(page.file), ".html")+".jpg"), shot, 0o644))
			t.Logf("screenshot in %s", artefacts)
			mu.Lock()
			defer mu.Unlock()
			assert.Empty(t, problems, "console errors")
			for _, r := range requests {
				if strings.HasPrefix(r, "data:") {
					continue // the inline font: part of the page, not a fetch
				}
				assert.Equal(t, url, r, "the page fetches nothing but itself")
			}
			require.Len(t, sizes, page.charts)
			for i, s := range sizes {
				assert.Greater(t, s[0], 100.0, "chart %d width", i)
				assert.Greater(t, s[1], 50.0, "chart %d height", i)
			}
			assert.Greater(t, len(shot), 10_000, "a screenshot with something in it")
		})
	}
}
