package main

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/cmd/llmmetrics/internal/gpu"
	"github.com/llmmetrics/llmmetrics/drive"
	"github.com/llmmetrics/llmmetrics/observe"
	"github.com/llmmetrics/llmmetrics/server"
)

// breakdownMaxTokens is max_tokens of a breakdown's requests when
// --max-tokens is not given: the breakdown times the first token, and a
// few more show the request ended normally.
const breakdownMaxTokens = 16

// runBreakdown is run --ttft-breakdown: the specification's TTFT breakdown
// (cold, sequential requests per prompt length), each request's TTFT
// decomposed with the server's own timings by the server module.
func runBreakdown(fs *flag.FlagSet, f *runFlags, stdout io.Writer) error {
	p, err := f.breakdownPlan(fs)
	if err != nil {
		return err
	}
	w, _, err := outputs{out: *f.out, timings: *f.timings}.check(f.inputs(), *f.force)
	if err != nil {
		return err
	}
	in := catchInterrupts(os.Stderr, "the request in flight is cancelled and recorded, the rest skipped")
	defer in.release()
	ctx := in.ctx
	// The records are written as each request ends, after a header, and
	// an end line says how the run ended, as a load run's.
	p.Epoch, p.OnResult = time.Now(), w.add
	load := map[string]string{"mode": "ttft-breakdown", "prompt_lengths": *f.promptLengths, "repeats": strconv.Itoa(p.Repeats),
		"settle": p.Settle.String(), "max_tokens": strconv.Itoa(p.MaxTokens)}
	if err := w.header(f.header(ctx, fs, p.Plan, p.Epoch, load)); err != nil {
		w.finish(&llmmetrics.RunEnd{State: "interrupted"})
		return err
	}
	stop := func(by string, err error) error {
		end := &llmmetrics.RunEnd{State: "interrupted", By: by}
		if signal := in.By(); signal != "" {
			end.By = signal
		}
		return errors.Join(err, w.finish(end))
	}
	var sampler *gpu.Sampler
	if *f.gpuTelemetry {
		if sampler, err = gpu.Start(ctx, gpu.Options{Interval: *f.gpuInterval}); err != nil {
			return stop("a failed --gpu-telemetry", fmt.Errorf("--gpu-telemetry: %w", err))
		}
		select { // every prompt length is sampled from its first request
		case <-sampler.Ready():
		case <-ctx.Done():
		}
	}
	out, err := drive.Breakdown(ctx, p)
	var samples []gpu.Sample
	var sampleErr error
	if sampler != nil {
		samples, sampleErr = sampler.Stop()
	}
	if short := (*drive.TooShortError)(nil); errors.As(err, &short) {
		return stop("--prompt-lengths below the smallest prompt", err)
	} else if err != nil {
		return stop("a failed sizing request", err)
	}
	werr := w.finish(breakdownEnd(out, in.By()))
	rep, err := assembleBreakdown(p, out, samples, sampleErr, *f.gpuTelemetry)
	if err != nil {
		return errors.Join(err, werr)
	}
	if *f.json {
		b, err := json.Marshal(map[string]any{"ttft_breakdown": rep})
		if err != nil {
			return errors.Join(err, werr)
		}
		if _, err = fmt.Fprintf(stdout, "%s\n", b); err != nil {
			return errors.Join(err, werr)
		}
	} else if err := rep.writeTable(stdout); err != nil {
		return errors.Join(err, werr)
	}
	if werr != nil {
		return werr
	}
	return breakdownMeasured(out, in.By())
}

// breakdownMeasured applies run's rule to a breakdown: one none of whose
// measured requests (those of the prompt lengths, not the preflight ones)
// ended ok measured nothing, and exits with status 4 after its report. It
// returns errAllFailed when some were sent and every one failed, with the
// first failure in the server's words, and errNothingMeasured when none
// was sent (a signal, by, before the first).
func breakdownMeasured(out *drive.BreakdownOutcome, by string) error {
	sent, skipped, first, why := 0, 0, "", ""
	for _, l := range out.Lengths {
		for _, r := range l.Results {
			rec := &r.Record
			if rec.Status == llmmetrics.StatusOK {
				return nil
			}
			sent++
			if first == "" {
				first = fmt.Sprintf("request %s: %s: %s", rec.ID, rec.Status, rec.Message)
			}
		}
		skipped += l.Skipped
		why = cmp.Or(why, l.SkipReason)
	}
	switch {
	case sent == 0 && by != "":
		return fmt.Errorf("%w: %s stopped the breakdown before its first measured request", errNothingMeasured, by)
	case sent == 0:
		return fmt.Errorf("%w: the breakdown sent no measured request", errNothingMeasured)
	}
	msg := fmt.Sprintf("%d of %d", sent, sent)
	if skipped > 0 {
		msg += fmt.Sprintf(", and %d not sent (%s)", skipped, why)
	}
	return fmt.Errorf("%w: %s; the first failure: %s", errAllFailed, msg, first)
}

// breakdownEnd is the end line of a breakdown: completed or interrupted
// (by what), every request planned (the preflight ones, and each length's
// sent or skipped), the salt chosen and why a length was skipped.
func breakdownEnd(out *drive.BreakdownOutcome, by string) *llmmetrics.RunEnd {
	end := &llmmetrics.RunEnd{State: "completed", Load: map[string]string{"salt": out.Salt.String()}}
	if out.Interrupted {
		end.State, end.By = "interrupted", cmp.Or(by, "an interrupt")
	}
	end.Planned = len(out.Preflight)
	for _, l := range out.Lengths {
		end.Planned += len(l.Results) + l.Skipped
		if l.Skipped > 0 {
			end.Notes = append(end.Notes, fmt.Sprintf("%d requests of %d tokens were skipped: %s.", l.Skipped, l.Tokens, l.SkipReason))
		}
	}
	return end
}

// breakdownPlan turns the flags into a breakdown plan, refusing the flags
// of a load run.
func (f *runFlags) breakdownPlan(fs *flag.FlagSet) (drive.BreakdownPlan, error) {
	var bp drive.BreakdownPlan
	var load []string
	fs.Visit(func(fl *flag.Flag) {
		switch fl.Name {
		case "requests", "duration", "concurrency", "rate", "burstiness", "warmup", "prompt-tokens", "prompts", "scrape",
			"grace", "method", "percentiles", "slo":
			load = append(load, "--"+fl.Name)
		}
	})
	if len(load) > 0 {
		return bp, fmt.Errorf("%w: --ttft-breakdown sends its own cold requests, one at a time: %s belong to a load run", errUsage, strings.Join(load, ", "))
	}
	p, err := f.target()
	if err != nil {
		return bp, err
	}
	if p.MaxTokens == 0 {
		p.MaxTokens = breakdownMaxTokens
	}
	repeats := *f.repeats
	if !flagSet(fs, "repeats") {
		repeats = 5
	}
	bp = drive.BreakdownPlan{Plan: p, Repeats: repeats, Settle: *f.settle}
	for _, s := range strings.Split(*f.promptLengths, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil {
			return bp, valueError(fmt.Sprintf("--prompt-lengths %q: %q is not a token count", *f.promptLengths, strings.TrimSpace(s)))
		}
		bp.Lengths = append(bp.Lengths, n)
	}
	if *f.settle == 0 {
		return bp, valueError("--settle must be positive (the specification uses 0.5s)")
	}
	if err := drive.CheckBreakdown(bp); err != nil {
		return bp, fmt.Errorf("%w: %s", errUsage, trimPrefix(err))
	}
	return bp, nil
}

// breakdownReport is the report of a TTFT breakdown run.
type breakdownReport struct {
	Repeats    int            `json:"repeats"`
	SettleS    float64        `json:"settle_s"`
	MaxTokens  int            `json:"max_tokens"`
	Salt       string         `json:"salt"`
	SaltNote   string         `json:"salt_note"`
	SizeNote   string         `json:"size_note"`
	Sent       int            `json:"sent"`
	Preflight  int            `json:"preflight"`
	Skipped    int            `json:"skipped"`
	Interrupt  bool           `json:"interrupted"`
	GPUNote    string         `json:"gpu_note,omitempty"`
	Lengths    []lengthReport `json:"lengths"`
	Percentile string         `json:"percentiles"`
}

// lengthReport is one prompt length of a breakdown: every request sent
// ends in one of decomposed, failed and left out; the requests not sent
// are skipped, with the reason.
type lengthReport struct {
	Asked        int                `json:"prompt_tokens_asked"`
	Sent         int                `json:"sent"`
	Decomposed   int                `json:"decomposed"`
	FailedN      int                `json:"failed"`
	LeftOut      int                `json:"left_out"` // ok, but no text to time
	Failure      string             `json:"failure,omitempty"`
	Skipped      int                `json:"skipped"`
	SkipReason   string             `json:"skip_reason,omitempty"`
	ServerPrompt []int              `json:"server_prompt_tokens"`
	Cached       []*int             `json:"cached_prompt_tokens"` // null where the server did not say
	TTFT         *server.TTFTReport `json:"decomposition"`
	GPU          []gpu.Summary      `json:"gpu,omitempty"`
}

// assembleBreakdown decomposes each length's requests with the server's
// timings, through the same timings format the server command reads, and
// summarizes the GPU samples over each length's window.
func assembleBreakdown(p drive.BreakdownPlan, out *drive.BreakdownOutcome, samples []gpu.Sample, sampleErr error, telemetry bool) (*breakdownReport, error) {
	rep := &breakdownReport{Repeats: p.Repeats, SettleS: p.Settle.Seconds(), MaxTokens: p.MaxTokens, Salt: out.Salt.String(),
		SaltNote: out.SaltNote, SizeNote: out.SizeNote, Preflight: len(out.Preflight), Interrupt: out.Interrupted,
		Percentile: "nearest rank"}
	rep.Sent = rep.Preflight
	if sampleErr != nil {
		rep.GPUNote = sampleErr.Error()
	}
	for _, l := range out.Lengths {
		lr := lengthReport{Asked: l.Tokens, Sent: len(l.Results), Failure: l.Failed, Skipped: l.Skipped, SkipReason: l.SkipReason,
			ServerPrompt: []int{}, Cached: []*int{}}
		rep.Sent += lr.Sent
		rep.Skipped += lr.Skipped
		timings, err := serverTimings(l.Results)
		if err != nil {
			return nil, err
		}
		var recs []llmmetrics.Record
		for _, r := range l.Results {
			rec := r.Record
			if rec.Status != llmmetrics.StatusOK {
				lr.FailedN++
				continue
			}
			lr.ServerPrompt = append(lr.ServerPrompt, rec.PromptTokens)
			if r.CacheKnown {
				lr.Cached = append(lr.Cached, &r.CachedTokens)
			} else {
				lr.Cached = append(lr.Cached, nil)
			}
			if !r.UsageKnown && !rec.NoUsage {
				// n is unknown, but the first token's time is not: the
				// decomposition needs no n. One token stands for "some".
				rec.CompletionTokens = max(rec.CompletionTokens, 1)
			}
			if _, ok := timings[rec.ID]; !ok {
				timings[rec.ID] = server.Timings{} // every part unknown, the client TTFT still shown
			}
			recs = append(recs, rec)
		}
		lr.TTFT = server.DecomposeAll(recs, timings, nil)
		lr.Decomposed = len(lr.TTFT.Rows)
		lr.LeftOut = lr.Sent - lr.FailedN - lr.Decomposed
		if telemetry && !l.Begin.IsZero() {
			lr.GPU = gpu.Summarize(samples, l.Begin, l.End)
		}
		rep.Lengths = append(rep.Lengths, lr)
	}
	return rep, nil
}

// serverTimings reads the server timings the observer found in the
// results, through the timings format of the server command.
func serverTimings(results []*observe.Result) (map[string]server.Timings, error) {
	var buf bytes.Buffer
	if _, err := observe.WriteTimings(&buf, results); err != nil {
		return nil, err
	}
	return parseTimings(&buf, "the streams' timings")
}

func (r *breakdownReport) writeTable(w io.Writer) error {
	var b bytes.Buffer
	b.WriteString("llmmetrics run --ttft-breakdown\n\n")
	fmt.Fprintf(&b, "cold requests, one at a time, %v apart, %d a prompt length, max_tokens %d; percentiles by nearest rank\n", time.Duration(r.SettleS*1e9), r.Repeats, r.MaxTokens)
	fmt.Fprintf(&b, "cache isolation: %s\n", r.SaltNote)
	fmt.Fprintf(&b, "prompt sizing: %s\n", r.SizeNote)
	fmt.Fprintf(&b, "requests: %d sent (%d preflight, marked warm-up), %d skipped", r.Sent, r.Preflight, r.Skipped)
	if r.Interrupt {
		b.WriteString("; the run was interrupted")
	}
	b.WriteString("\n")
	if r.GPUNote != "" {
		fmt.Fprintf(&b, "GPU telemetry: %s\n", r.GPUNote)
	}
	for _, l := range r.Lengths {
		fmt.Fprintf(&b, "\nprompt length %d tokens: %d sent: %d decomposed, %d failed, %d left out (no text to time)", l.Asked, l.Sent, l.Decomposed, l.FailedN, l.LeftOut)
		if l.Skipped > 0 {
			fmt.Fprintf(&b, "; %d skipped: %s", l.Skipped, l.SkipReason)
		}
		b.WriteString("\n")
		if l.Failure != "" {
			fmt.Fprintf(&b, "  failed: %s\n", l.Failure)
		}
		if len(l.ServerPrompt) > 0 {
			fmt.Fprintf(&b, "  prompt tokens as the server counted them: %s; cached prompt tokens: %s\n", joinInts(l.ServerPrompt), joinCached(l.Cached))
		}
		if len(l.TTFT.Rows) > 0 {
			var t bytes.Buffer
			if err := l.TTFT.WriteTable(&t); err != nil {
				return err
			}
			for _, line := range strings.SplitAfter(t.String(), "\n") {
				if line != "" {
					b.WriteString("  " + line)
				}
			}
		}
		for _, g := range l.GPU {
			fmt.Fprintf(&b, "  %s\n", g)
		}
	}
	_, err := w.Write(b.Bytes())
	return err
}

func joinInts(v []int) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ", ")
}

func joinCached(v []*int) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = "unknown"
		if x != nil {
			s[i] = strconv.Itoa(*x)
		}
	}
	return strings.Join(s, ", ")
}

// breakdownAbout is the paragraph of run's help on --ttft-breakdown.
const breakdownAbout = "--ttft-breakdown runs the specification's TTFT breakdown instead of a load: for each prompt length,\n" +
	"from the shortest, --repeats cold requests one at a time, --settle apart. Two preflight requests size\n" +
	"the prompts as the server counts tokens; two more ask whether the server honours vLLM's cache_salt field\n" +
	"(used when the server accepts it and reports no cached tokens for a repeated prompt under a new salt;\n" +
	"otherwise each prompt begins with random text), and the report says which and why. Each request's\n" +
	"client TTFT is decomposed with the timings the server sent in the stream (vLLM's per-request metrics,\n" +
	"llama.cpp's timings, Ollama's durations): queue, prefill, residual and client overhead, each unknown\n" +
	"where the server did not report it; per length, every row and a summary (mean, p50, p95, p99, min,\n" +
	"max). The first request that fails (out of memory, say) is recorded, and every later one is skipped\n" +
	"and counted with the reason. With --gpu-telemetry the samples are summarized per length.\n\n" +
	"The exit status of --search and of --ttft-breakdown: 0 when a measured request ended ok, also after a\n" +
	"signal (the report of what was measured follows); 4 when nothing was measured: every measured request\n" +
	"failed, or a signal came before the first (no status 5 for them), after the report and its error set;\n" +
	"1 for a failed test or sizing request or an output that cannot be written; 2 for a usage mistake."

// breakdownFlags are run's flags of --ttft-breakdown alone (--repeats is
// shared with --search).
type breakdownFlags struct {
	ttftBreakdown *bool
	promptLengths *string
	settle        *time.Duration
}

func (b *breakdownFlags) define(fs *flag.FlagSet) {
	b.ttftBreakdown = fs.Bool("ttft-breakdown", false, "the specification's TTFT breakdown: cold requests one at a time per prompt length, each TTFT decomposed with the server's timings")
	b.promptLengths = fs.String("prompt-lengths", "128,512,2048", "with --ttft-breakdown: the prompt `lengths` in tokens, as the server counts them")
	b.settle = fs.Duration("settle", 500*time.Millisecond, "with --ttft-breakdown: the pause before each request")
}
