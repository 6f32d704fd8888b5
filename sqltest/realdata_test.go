//go:build cgo

package sqltest

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/conformance"
	"github.com/llmmetrics/llmmetrics/formats"
)

// TestRealdata runs the recipe on the runs in the real files of other
// tools under ../shared/realdata (each written as Parquet) and requires
// the figures `llmmetrics report` gives for them: every figure of
// lm_figures, each request's too, with the window the file declares and
// an SLO, so that goodput is judged.
func TestRealdata(t *testing.T) {
	root := "../../shared/realdata"
	if _, err := os.Stat(root); err != nil {
		t.Skipf("no real data at %s (%v): skipped", root, err)
	}
	db := openDB(t)
	dir := t.TempDir()
	slo := llmmetrics.SLO{TTFT: 500 * time.Millisecond, TPOT: 50 * time.Millisecond}
	n := 0
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(path, ".md") {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		tool, ok := formats.Detect(b[:min(len(b), 1<<16)])
		if !ok {
			return nil
		}
		files, err := formats.ReadAll(bytes.NewReader(b), tool)
		if err != nil {
			return nil // a summary file, or one its reader refuses: not a run
		}
		for k, f := range files {
			run, err := f.Records()
			if err != nil && !errors.Is(err, llmmetrics.ErrRejected) {
				continue
			}
			name := fmt.Sprintf("%s/%d", filepath.Base(path), k)
			n++
			t.Run(name, func(t *testing.T) {
				// The rows the tool's reader set aside are not records.
				run.Rejected, run.Unlisted = nil, 0
				opt := llmmetrics.Options{Window: run.Window, NoSendTimes: run.NoSendTimes, SLO: &slo}
				s, err := run.Summarize(opt)
				if err != nil {
					t.Skipf("report: %v", err)
				}
				want := reportFigures(s, run.Records, llmmetrics.DefaultPercentiles)
				p := writeParquet(t, dir, fmt.Sprintf("real-%d", n), run)
				got := recipeFigures(t, db, p, opt)
				differ, missing := conformance.Compare(want, got)
				if len(differ)+len(missing) > 0 {
					t.Errorf("%d of %d figures differ or are missing:%s", len(differ)+len(missing), len(want), report(differ, missing))
				}
			})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Skipf("no run among the files of %s", root)
	}
}

// reportFigures are a report's figures, named as lm_figures names them:
// those of the summary, and each measured request's from the record's
// methods, as the report computes them.
func reportFigures(s *llmmetrics.Summary, recs []llmmetrics.Record, ps []llmmetrics.Percentile) conformance.Figures {
	f := conformance.Figures{}
	count := func(name string, k int) { f[name] = conformance.Num(float64(k)) }
	a := s.Requests
	count("requests.offered", a.Offered)
	count("requests.ok", a.OK)
	count("requests.zero_token", a.ZeroToken)
	count("requests.failed", a.Failed)
	// The recipe counts preflight and unfinished requests with the warm-up:
	// the category that is never measured.
	count("requests.warmup", a.Warmup+a.Preflight+a.Unfinished)
	count("requests.one_token", a.OneToken)
	count("requests.no_token_count", a.Uncounted.Total())

	f["tpot_ms.gap_weighted_mean"] = conformance.Absent
	var tpot, itl *llmmetrics.Distribution
	if s.TPOT != nil {
		tpot = &s.TPOT.Distribution
		f["tpot_ms.gap_weighted_mean"] = millis(s.TPOT.GapWeightedMean)
	}
	if s.ITL != nil {
		itl = &s.ITL.Distribution
	}
	distribution(f, "ttft_ms", s.TTFT, ps)
	distribution(f, "e2e_ms", s.E2E, ps)
	distribution(f, "tpot_ms", tpot, ps)
	distribution(f, "itl_ms", itl, ps)

	for _, name := range []string{"output_tokens_per_s", "prompt_tokens_per_s", "requests_per_s"} {
		f[name] = conformance.Absent
	}
	if t := s.Throughput; t != nil {
		if _, none := s.Absent["output_tokens_per_s"]; !none {
			f["output_tokens_per_s"] = conformance.Num(float64(t.OutputTokensPerSecond))
		}
		f["requests_per_s"] = conformance.Num(float64(t.RequestsPerSecond))
		if _, none := s.Absent["prompt_tokens_per_s"]; !none {
			f["prompt_tokens_per_s"] = conformance.Num(float64(t.PromptTokensPerSecond))
		}
	}
	f["goodput.good"], f["goodput.attainment"], f["goodput.requests_per_s"] = conformance.Num(0), conformance.Absent, conformance.Absent
	if g := s.Goodput; g != nil {
		count("goodput.good", g.Good)
		f["goodput.attainment"] = conformance.Num(g.Attainment)
		if g.WindowErr == nil {
			f["goodput.requests_per_s"] = conformance.Num(float64(g.RequestsPerSecond))
		}
	}

	for i := range recs {
		r := &recs[i]
		if r.Category() == llmmetrics.CategoryWarmup {
			continue
		}
		fig := func(name string) string { return "request." + r.ID + "." + name }
		for _, m := range llmmetrics.Metrics() {
			if m.PerRequest {
				d, err := m.Value(r)
				f[fig(m.Key+"_"+m.Unit)] = conformance.Absent
				if err == nil {
					f[fig(m.Key+"_"+m.Unit)] = millis(d)
				}
			}
		}
		f[fig("user_tps")] = conformance.Absent
		if tps, err := r.UserTPS(); err == nil {
			f[fig("user_tps")] = conformance.Num(float64(tps))
		}
	}
	return f
}

// distribution sets a distribution's figures: n always, the others
// absent when d is nil.
func distribution(f conformance.Figures, name string, d *llmmetrics.Distribution, ps []llmmetrics.Percentile) {
	f[name+".n"] = conformance.Num(0)
	for _, k := range []string{"mean", "min", "max"} {
		f[name+"."+k] = conformance.Absent
	}
	for _, p := range ps {
		f[name+"."+p.Key()] = conformance.Absent
	}
	if d == nil {
		return
	}
	f[name+".n"] = conformance.Num(float64(d.N))
	f[name+".mean"], f[name+".min"], f[name+".max"] = millis(d.Mean), millis(d.Min), millis(d.Max)
	for _, p := range ps {
		if x, ok := d.At(p); ok {
			f[name+"."+p.Key()] = millis(x)
		}
	}
}

func millis(d time.Duration) conformance.Value { return conformance.Num(float64(d) / 1e6) }
