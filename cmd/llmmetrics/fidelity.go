package main

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/drive"
	"github.com/llmmetrics/llmmetrics/observe"
)

// A fidelity compares the load a run sent with the load it asked for (a
// replayed trace, or a declared workload: synthetic prompt lengths),
// measured requests only: how many were sent; how late, and how many
// each minute against the plan; the prompt lengths the server counted
// and the output lengths it gave against those asked (two-sample
// Kolmogorov–Smirnov); the early stops and the capped rows; and, with
// shared prefixes, the reuse planned against the cached prompt tokens
// the server reported. Warnings say where the sent load is not the asked
// one.
type fidelity struct {
	Asked int `json:"asked"`
	Sent  int `json:"sent"`
	// Lateness, from each request's due time to its send, where the plan
	// has a schedule.
	LatenessP50MS *float64 `json:"lateness_p50_ms,omitempty"`
	LatenessP99MS *float64 `json:"lateness_p99_ms,omitempty"`
	// Minutes counts the requests asked and sent in each minute from the
	// measured part's start (its last minute may be partial).
	Minutes []minuteLoad `json:"minutes,omitempty"`
	Prompt  *lengthFit   `json:"prompt_tokens,omitempty"`
	Output  *lengthFit   `json:"output_tokens,omitempty"`
	// EarlyStops counts the ok requests that ended before their
	// max_tokens, of OutputKnown whose length is known.
	EarlyStops   int          `json:"early_stops"`
	OutputKnown  int          `json:"output_known"`
	CappedPrompt int          `json:"capped_prompt_rows,omitempty"`
	CappedOutput int          `json:"capped_output_rows,omitempty"`
	Prefix       *prefixReuse `json:"prefix_reuse,omitempty"`
	// InterruptedBy names what interrupted the run ("SIGTERM"): the
	// requests it never sent, and the minutes short of them, are its
	// doing, not the load's, and are not warned about.
	InterruptedBy string   `json:"interrupted_by,omitempty"`
	Warnings      []string `json:"warnings,omitempty"`
}

// A minuteLoad is one minute of the measured part: the requests due in it
// and those sent in it.
type minuteLoad struct {
	Minute int `json:"minute"`
	Asked  int `json:"asked"`
	Sent   int `json:"sent"`
}

// A lengthFit compares lengths asked with lengths sent (as the server
// counted them).
type lengthFit struct {
	AskedP50 int    `json:"asked_p50"`
	SentP50  int    `json:"sent_p50"`
	Sent     int    `json:"sent"` // the requests whose length the server gave
	KS       ksTest `json:"ks"`
	// OffP50 and OffP99 are percentiles of each request's distance from
	// its own length asked, |sent − asked|, in tokens; Off counts the
	// requests off by more than the resolution and 2% of their length.
	OffP50 int `json:"off_p50"`
	OffP99 int `json:"off_p99"`
	Off    int `json:"off"`
	// Resolution is the tokens a length can be made to: a word of a
	// synthetic prompt as the server counts it; 0 for outputs.
	Resolution float64 `json:"resolution,omitempty"`
}

// A prefixReuse compares the prompt tokens planned to be shared with the
// cached prompt tokens the server reported (usage's
// prompt_tokens_details.cached_tokens, llama.cpp's timings.cache_n).
type prefixReuse struct {
	PlannedPct float64 `json:"planned_pct"`
	// Reported counts the requests whose cached tokens the server gave;
	// the shares below are over them, absent when none did.
	Reported  int      `json:"reported"`
	CachedPct *float64 `json:"cached_pct,omitempty"`
	// SharedCachedPct is the share cached of the prompt tokens of the
	// requests planned to share a prefix; UnsharedCachedPct of the
	// others (a chat template's first tokens are cached there too).
	SharedCachedPct   *float64 `json:"shared_cached_pct,omitempty"`
	UnsharedCachedPct *float64 `json:"unshared_cached_pct,omitempty"`
}

// The thresholds of fidelity's warnings.
const (
	lateFidelity = 100 * time.Millisecond // lateness p99 above it
	ksAlpha      = 0.01                   // a KS p below it, with
	ksEffect     = 0.1                    // a D at least this
)

// A length warning needs the three: a KS difference that is significant
// (p < ksAlpha) and noticeable (D ≥ ksEffect), and more than offShare of
// the requests off their own length asked by more than its resolution
// and 2% of it. A prompt is made of whole words, so a server that counts
// a word as six tokens gets lengths a few tokens off (a capped length,
// one value asked of many rows, then makes KS's D large though every
// prompt is as near as words come).
const offShare = 0.05

// withFidelity adds the fidelity of the run's load to its load check:
// for a replay, or a run of synthetic prompt lengths whose requests the
// plan lists (not an automatic warm-up, a closed loop of a duration, a
// shard, or sessions: a turn's prompt as the server counts it is the
// whole conversation, not the new message the plan sizes).
func (r *loadRun) withFidelity(lc *loadCheck) *loadCheck {
	q := r.p
	if len(q.Replay) == 0 {
		q.PromptTokensEach, q.Prompts = r.f.plannedPromptLengths(q), nil
	}
	if len(q.Replay) == 0 && len(q.PromptTokensEach) == 0 || q.Warmup.Auto || flagSet(r.fs, "shard") || q.Sessions > 0 {
		return lc
	}
	plan, _, err := drive.Schedule(q)
	if err != nil {
		return lc
	}
	resolution := 1.0
	if q.Sizing != nil {
		resolution = q.Sizing.TokensPerWord()
	}
	fd := newFidelity(plan, q.PrefixBlockTokens, resolution, r.rw.all(), r.in.By())
	if fd == nil {
		return lc
	}
	if rp := r.f.replayed; rp != nil {
		fd.CappedPrompt, fd.CappedOutput = rp.CappedPrompt, rp.CappedOutput
	}
	if lc == nil {
		lc = &loadCheck{}
	}
	lc.Fidelity = fd
	lc.Warnings = append(lc.Warnings, fd.Warnings...)
	return lc
}

// newFidelity compares the measured requests of plan (warm-up first, in
// the order of their ids, 1…N) with the results sent, prompts made to
// resolution tokens, of a run interrupted by by (or ""); nil when nothing
// of the plan was measured. It does not modify its arguments.
func newFidelity(plan []drive.Request, blockTokens int, resolution float64, results []*observe.Result, by string) *fidelity {
	fd := &fidelity{InterruptedBy: by}
	t := fidelityTally{shared: drive.PrefixShare(plan, blockTokens)}
	t.asked(fd, plan)
	if fd.Asked == 0 {
		return nil
	}
	for _, res := range results {
		t.sent(fd, plan, res)
	}
	t.assemble(fd, resolution)
	if blockTokens > 0 && t.plannedTotal > 0 {
		fd.Prefix = t.prefix(results)
	}
	fd.warn()
	return fd
}

// fidelityTally gathers what newFidelity compares: the lengths and
// offsets asked, and those of the requests sent.
type fidelityTally struct {
	shared                                                  []int // each plan row's prompt tokens in blocks sent before
	askedPrompt, askedOut, sentPrompt, sentOut              []int
	offPrompt, offOut                                       []int
	askedOff                                                []int // the lengths asked of offPrompt's requests
	late, due, sends                                        []time.Duration
	planned, plannedTotal                                   int
	start                                                   time.Duration // the measured part's start on the run's clock
	startKnown                                              bool
	cached, prompt, sharedCached, sharedPrompt, otherCached int
	otherPrompt                                             int
}

// asked counts the plan's measured requests and notes what they ask.
func (t *fidelityTally) asked(fd *fidelity, plan []drive.Request) {
	for i, q := range plan {
		if q.Warmup {
			continue
		}
		fd.Asked++
		if q.PromptTokens > 0 {
			t.askedPrompt = append(t.askedPrompt, q.PromptTokens)
		}
		if q.MaxTokens > 0 {
			t.askedOut = append(t.askedOut, q.MaxTokens)
		}
		if q.HasSchedule {
			t.due = append(t.due, q.Scheduled)
		}
		t.planned, t.plannedTotal = t.planned+t.shared[i], t.plannedTotal+q.PromptTokens
	}
}

// sent notes one result of a measured request of the plan.
func (t *fidelityTally) sent(fd *fidelity, plan []drive.Request, res *observe.Result) {
	rec := &res.Record
	n, err := strconv.Atoi(rec.ID)
	if err != nil || rec.Preflight || rec.Warmup || n < 1 || n > len(plan) || plan[n-1].Warmup {
		return
	}
	q := plan[n-1]
	fd.Sent++
	if l, ok := rec.Client.Lateness(rec.Sent); ok {
		t.late = append(t.late, l)
		if !t.startKnown && q.HasSchedule {
			t.start, t.startKnown = rec.Client.Scheduled-q.Scheduled, true
		}
	}
	t.sends = append(t.sends, rec.Sent)
	if rec.Status != llmmetrics.StatusOK {
		return
	}
	if rec.PromptTokens > 0 {
		t.sentPrompt = append(t.sentPrompt, rec.PromptTokens)
		if q.PromptTokens > 0 {
			t.offPrompt, t.askedOff = append(t.offPrompt, abs(rec.PromptTokens-q.PromptTokens)), append(t.askedOff, q.PromptTokens)
		}
	}
	if !rec.NoUsage && rec.MaxTokens > 0 {
		t.sentOut = append(t.sentOut, rec.CompletionTokens)
		t.offOut = append(t.offOut, abs(rec.CompletionTokens-q.MaxTokens))
		fd.OutputKnown++
		if rec.CompletionTokens < rec.MaxTokens {
			fd.EarlyStops++
		}
	}
	if res.CacheKnown && rec.PromptTokens > 0 {
		t.cached, t.prompt = t.cached+res.CachedTokens, t.prompt+rec.PromptTokens
		if t.shared[n-1] > 0 {
			t.sharedCached, t.sharedPrompt = t.sharedCached+res.CachedTokens, t.sharedPrompt+rec.PromptTokens
		} else {
			t.otherCached, t.otherPrompt = t.otherCached+res.CachedTokens, t.otherPrompt+rec.PromptTokens
		}
	}
}

// assemble sets the lateness, the minutes and the length comparisons.
func (t *fidelityTally) assemble(fd *fidelity, resolution float64) {
	if len(t.late) > 0 {
		slices.Sort(t.late)
		p50, p99 := ms(nearest(t.late, 50)), ms(nearest(t.late, 99))
		fd.LatenessP50MS, fd.LatenessP99MS = &p50, &p99
	}
	if len(t.due) > 0 && t.startKnown {
		fd.Minutes = byMinute(t.due, t.sends, t.start)
	}
	if len(t.askedPrompt) > 0 && len(t.sentPrompt) > 0 {
		fd.Prompt = fit(t.askedPrompt, t.sentPrompt, t.offPrompt)
		fd.Prompt.Resolution = resolution
		for i, off := range t.offPrompt {
			if float64(off) > max(resolution, 0.02*float64(t.askedOff[i])) {
				fd.Prompt.Off++
			}
		}
	}
	if len(t.askedOut) > 0 && len(t.sentOut) > 0 {
		fd.Output = fit(t.askedOut, t.sentOut, t.offOut)
		for _, off := range t.offOut {
			if off > 0 {
				fd.Output.Off++
			}
		}
	}
}

// prefix compares the prefix reuse planned with the cached prompt tokens
// the server reported.
func (t *fidelityTally) prefix(results []*observe.Result) *prefixReuse {
	pr := &prefixReuse{PlannedPct: pct(t.planned, t.plannedTotal)}
	for _, res := range results {
		if res.CacheKnown && !res.Record.Preflight && !res.Record.Warmup {
			pr.Reported++
		}
	}
	pr.CachedPct, pr.SharedCachedPct, pr.UnsharedCachedPct = pctOf(t.cached, t.prompt), pctOf(t.sharedCached, t.sharedPrompt), pctOf(t.otherCached, t.otherPrompt)
	return pr
}

func pct(a, b int) float64 { return 100 * float64(a) / float64(b) }

// pctOf is a of b in percent, absent for b 0.
func pctOf(a, b int) *float64 {
	if b <= 0 {
		return nil
	}
	v := pct(a, b)
	return &v
}

// fit compares lengths asked with lengths sent, each request off its own
// by off. It does not modify them.
func fit(asked, sent, off []int) *lengthFit {
	a, s, o := slices.Clone(asked), slices.Clone(sent), slices.Clone(off)
	slices.Sort(a)
	slices.Sort(s)
	slices.Sort(o)
	f := &lengthFit{AskedP50: nearest(a, 50), SentP50: nearest(s, 50), Sent: len(s), KS: twoSampleKS(a, s)}
	if len(o) > 0 {
		f.OffP50, f.OffP99 = nearest(o, 50), nearest(o, 99)
	}
	return f
}

func abs(x int) int { return max(x, -x) }

// byMinute counts the offsets due and the sends (on the run's clock, the
// measured part starting at start) in each minute of the measured part.
func byMinute(due, sends []time.Duration, start time.Duration) []minuteLoad {
	var out []minuteLoad
	at := func(m int) *minuteLoad {
		for len(out) <= m {
			out = append(out, minuteLoad{Minute: len(out)})
		}
		return &out[m]
	}
	for _, d := range due {
		at(int(d/time.Minute)).Asked++
	}
	for _, s := range sends {
		at(max(0, int((s-start)/time.Minute))).Sent++
	}
	return out
}

// warn says where the sent load is not the asked one.
func (fd *fidelity) warn() {
	const w = "WARNING: fidelity: the load sent is not the one asked: "
	if fd.Sent != fd.Asked && fd.InterruptedBy == "" {
		fd.Warnings = append(fd.Warnings, fmt.Sprintf(w+"%d of the %d requests asked were sent", fd.Sent, fd.Asked))
	}
	if fd.LatenessP99MS != nil && *fd.LatenessP99MS > ms(lateFidelity) {
		fd.Warnings = append(fd.Warnings, fmt.Sprintf(w+"lateness p99 is %.1f ms (above %v): the arrivals came later than the schedule", *fd.LatenessP99MS, lateFidelity))
	}
	for _, m := range fd.Minutes {
		if d := m.Sent - m.Asked; max(d, -d) > max(1, m.Asked/20) && fd.InterruptedBy == "" {
			fd.Warnings = append(fd.Warnings, fmt.Sprintf(w+"minute %d asked %d requests and sent %d", m.Minute, m.Asked, m.Sent))
			break
		}
	}
	for _, l := range []struct {
		what string
		f    *lengthFit
	}{{"prompt lengths (as the server counted them)", fd.Prompt}, {"output lengths", fd.Output}} {
		if l.f != nil && l.f.KS.P < ksAlpha && l.f.KS.D >= ksEffect && float64(l.f.Off) > offShare*float64(l.f.Sent) {
			fd.Warnings = append(fd.Warnings, fmt.Sprintf(w+"the %s differ from those asked (KS D %.3f, p %.2g; median %d sent, %d asked; %d of %d requests off their own)",
				l.what, l.f.KS.D, l.f.KS.P, l.f.SentP50, l.f.AskedP50, l.f.Off, l.f.Sent))
		}
	}
}

// String is the fit's line of the fidelity section. Lengths all within
// the resolution of their own are said to be so: a KS test then sees a
// shift of a word (300 asked, 302 counted: D 1, p tiny), not a misfit,
// and gives no warning.
func (f *lengthFit) String() string {
	s := fmt.Sprintf("median %d asked, %d sent (%d requests, as the server counted); KS D %.3f, p %.3g; each off its own by p50 %d, p99 %d; %d off",
		f.AskedP50, f.SentP50, f.Sent, f.KS.D, f.KS.P, f.OffP50, f.OffP99, f.Off)
	within := "2%"
	if f.Resolution > 0 {
		s += fmt.Sprintf(" by more than %.3g (a word) and 2%%", f.Resolution)
		within = "a word or 2%"
	}
	if f.Off == 0 && f.Sent > 0 {
		s += fmt.Sprintf(": all within %s of their own, no warning", within)
	}
	return s
}

// write prints the comparison.
func (fd *fidelity) write(w io.Writer) {
	if fd == nil {
		return
	}
	b := &strings.Builder{}
	fmt.Fprintln(b, "\nfidelity (the load sent against the load asked, measured requests):")
	fmt.Fprintf(b, "  %-16s asked %d, sent %d", "requests", fd.Asked, fd.Sent)
	if fd.InterruptedBy != "" && fd.Sent < fd.Asked {
		fmt.Fprintf(b, " (the run was interrupted by %s before the rest were sent)", fd.InterruptedBy)
	}
	fmt.Fprintln(b)
	if fd.LatenessP99MS != nil {
		fmt.Fprintf(b, "  %-16s p50 %.3f ms, p99 %.3f ms (from each request's due time to its send)\n", "lateness", *fd.LatenessP50MS, *fd.LatenessP99MS)
	}
	if len(fd.Minutes) > 0 {
		var ms []string
		for _, m := range fd.Minutes {
			ms = append(ms, fmt.Sprintf("%d: %d asked, %d sent", m.Minute, m.Asked, m.Sent))
		}
		fmt.Fprintf(b, "  %-16s %s\n", "by minute", strings.Join(ms, "; "))
	}
	for _, l := range []struct {
		what string
		f    *lengthFit
	}{{"prompt tokens", fd.Prompt}, {"output tokens", fd.Output}} {
		if l.f != nil {
			fmt.Fprintf(b, "  %-16s %s\n", l.what, l.f)
		}
	}
	fmt.Fprintf(b, "  %-16s %d of %d\n", "early stops", fd.EarlyStops, fd.OutputKnown)
	if fd.CappedPrompt > 0 || fd.CappedOutput > 0 {
		fmt.Fprintf(b, "  %-16s %d prompts, %d outputs (--cap-prompt-tokens, --cap-output-tokens)\n", "capped rows", fd.CappedPrompt, fd.CappedOutput)
	}
	if pr := fd.Prefix; pr != nil {
		fmt.Fprintf(b, "  %-16s planned %.1f%% of the prompt tokens", "prefix reuse", pr.PlannedPct)
		if pr.CachedPct == nil {
			fmt.Fprintln(b, "; the server reported no cached prompt tokens")
		} else {
			fmt.Fprintf(b, "; the server reported %.1f%% cached (%d requests)", *pr.CachedPct, pr.Reported)
			if pr.SharedCachedPct != nil {
				fmt.Fprintf(b, ", %.1f%% of the requests planned to share a prefix", *pr.SharedCachedPct)
			}
			if pr.UnsharedCachedPct != nil {
				fmt.Fprintf(b, ", %.1f%% of the others", *pr.UnsharedCachedPct)
			}
			fmt.Fprintln(b)
		}
	}
	io.WriteString(w, b.String())
}
