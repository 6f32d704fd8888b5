package llmmetrics

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/llmmetrics/llmmetrics/internal/inflight"
	"github.com/llmmetrics/llmmetrics/internal/reason"
)

// Options controls Summarize. The zero Options is useful: nearest-rank
// percentiles p50, p90, p95 and p99, a window derived from the records, no
// SLO, and strict validation.
type Options struct {
	Method      Method
	Percentiles []Percentile // nil means DefaultPercentiles
	// Window is the declared window for throughput and goodput; 0 means
	// derive it from the records, from the first send of a measured request
	// to the last text chunk of an ok request (see Window.Declared).
	Window time.Duration
	// NoSendTimes says the records' send times are not real (a file that
	// stored none), so no window can be derived from them: without a
	// declared Window, throughput and the goodput rate are absent; the
	// workload's arrivals and requests in flight are absent in any case.
	NoSendTimes bool
	// SLO, when set, adds a goodput section judged against it.
	SLO *SLO
	// Lenient sets invalid records aside as rejected, with their reasons,
	// instead of failing. Rejected records stay in the offered count.
	Lenient bool
	// Notes are carried into the Summary and its output: what the source of
	// the records could not tell, for instance.
	Notes []string
	// Warmup, when set, marks more records warm-up before anything is
	// computed (a copy is marked; the records are not modified): they are
	// counted in the warm-up category and the window is derived from the
	// rest. Summary.Warmup says where the cut fell and why. When a rule
	// finds no steady state, nothing is set aside, and the summary says
	// that its figures may include the warm-up.
	Warmup *WarmupSpec
	// Stratify, when set, also summarizes the ok requests by output or
	// prompt length, in Summary.Strata.
	Stratify *StrataSpec
}

// Accounting counts where every offered record ended. It always holds that
//
//	Offered = OK + ZeroToken + Failed + Rejected + Warmup + Preflight + Unfinished
//	Failed  = Errors + Timeouts + Cancelled
//
// Warm-up, preflight and unfinished records (CategoryWarmup) are never
// measured: Offered − Warmup − Preflight − Unfinished are the measured
// requests.
type Accounting struct {
	Offered   int
	OK        int // status ok, n ≥ 1: latency samples
	ZeroToken int // status ok, n = 0: counted apart, not a latency sample
	Failed    int // status error, timeout or cancelled
	Rejected  int // invalid, set aside in lenient mode
	Warmup    int // valid, sent during the warm-up: counted, never a sample
	Preflight int // valid, sent before the load to check or size it (Record.Preflight): counted, never a sample
	// Unfinished counts the requests the load generator stopped at its
	// run's end without their outcome (Record.Unfinished): counted apart,
	// never a sample, neither failed nor judged by an SLO.
	Unfinished int

	Errors, Timeouts, Cancelled int

	OneToken int // ok requests with n = 1: no TPOT, excluded from TPOT statistics

	// Uncounted counts the ok requests without a usable token count, by
	// reason: samples of TTFT, E2E and the gaps, left out of TPOT, the
	// token rates and the TPOT limit (see CountState). They are among OK,
	// and not among OneToken.
	Uncounted Uncounted
	// Unstreamed counts the ok requests whose text came at once (a reply
	// that came as one body, ClientSide.OneBody, or one chunk of two or
	// more tokens, or of tokens no count gives and max_tokens allows):
	// samples of E2E, counted in the token rates, left out of TTFT and
	// TPOT, whose values for them would be E2E and 0; among OK.
	Unstreamed int
}

// measured is the number of valid measured records: every offered one
// but warm-up, preflight and rejected ones.
func (a Accounting) measured() int {
	return a.Offered - a.Warmup - a.Preflight - a.Unfinished - a.Rejected
}

// nothingMeasured is why a figure of a run without a measured request is
// absent: a run stopped before its load began holds only preflight
// records, and no window or declared duration would give it a figure.
// A run whose every request was left unfinished (a benchmark stopped
// before any ended) says so.
func (a Accounting) nothingMeasured() string {
	if a.Unfinished > 0 {
		return "no request was measured: every record is preflight, warm-up, unfinished at the run's end or rejected"
	}
	return "no request was measured: every record is preflight, warm-up or rejected"
}

// TPOTStats is the distribution of per-request TPOT over ok requests with
// n ≥ 2. Its Mean is request-weighted (Σ TPOT_r / N); GapWeightedMean is the
// mean over all their inter-token gaps, Σ(t_last − t_first) / Σ(n_r − 1),
// which long requests dominate. Excluded counts the one-token requests left
// out, Unstreamed the requests of two or more counted tokens left out
// because their text came at once; the requests without a usable count
// are left out too, and counted in Accounting.Uncounted.
type TPOTStats struct {
	Distribution
	GapWeightedMean time.Duration
	Excluded        int
	Unstreamed      int
}

// ITLStats is the pooled distribution of gaps between consecutive
// text-bearing chunks of ok requests that have chunk arrivals; its Mean is
// gap-weighted. Basis is BasisToken only when every pooled request had one
// chunk per token (TokenBasis of them); otherwise the gaps are chunk gaps,
// and the per-token gap distribution of the ChunkBasis requests is unknown.
// NoChunks counts ok requests without chunk arrivals, which add no gaps; an
// unstreamed answer's one chunk adds none either, and is in no count.
//
// UnknownBasis counts the requests with chunk arrivals but no usable
// token count: whether their chunks carried one token each is unknown,
// so they are neither TokenBasis nor ChunkBasis, and Basis is BasisChunk.
type ITLStats struct {
	Distribution
	Basis        Basis
	TokenBasis   int
	ChunkBasis   int
	UnknownBasis int
	NoChunks     int
}

// A Summary holds every client-side metric of a run. A section is nil when
// the run has no data for it; Absent says why. Absent["ttft_unstreamed"]
// and Absent["tpot_unstreamed"] say why TTFT and TPOT, though present,
// leave out some ok requests: their text came at once (see
// Accounting.Unstreamed).
type Summary struct {
	Method      Method
	Percentiles []Percentile
	Requests    Accounting

	TTFT   *Distribution // over ok requests
	E2E    *Distribution // over ok requests
	TPOT   *TPOTStats    // over ok requests with n ≥ 2
	ITL    *ITLStats     // over the gaps of ok requests with chunk arrivals
	MaxGap *Distribution // each ok request's largest chunk gap, over requests with ≥ 2 chunks

	Throughput *Throughput
	Goodput    *Goodput
	// Client holds the client-side distributions, where the records carry
	// a load generator's facts (Record.Client).
	Client *ClientStats
	// Header is how the run was taken, where its file said (Run.Header).
	Header *RunHeader
	// Completeness says whether the file held the whole run, where its
	// header or end line said (Run.End).
	Completeness *Completeness
	// Warmup is the cut Options.Warmup made, when it was set.
	Warmup *WarmupCut
	// Workload describes what the measured requests asked of the server.
	Workload *Workload
	// Strata are the ok requests by length, when Options.Stratify asked.
	Strata *Strata

	Rejected []*RecordError // the first MaxReasons records set aside in lenient mode; Requests.Rejected counts them all
	Notes    []string       // Options.Notes, then the run's own (RunEnd.Notes)
	Absent   map[string]string
}

// Summarize computes every metric of recs. It does not modify recs.
//
// In strict mode (the default) any invalid record makes it fail with an
// error that lists the invalid records, each a *RecordError. In lenient
// mode invalid records are counted as rejected and listed in
// Summary.Rejected. It returns ErrNoRecords for an empty input, and errors
// for invalid options.
func Summarize(recs []Record, opt Options) (*Summary, error) {
	return summarize(&source{recs: recs}, &Run{}, opt)
}

// Summarize computes every metric of the run's records, as the function
// Summarize does, and also counts the rows the reader rejected. In strict
// mode any such row is an error. The run's declared Window is the
// throughput window unless opt declares one, and its NoSendTimes holds
// whatever opt says. A run with no record is ErrNoRecords; when its file
// was cut before its first whole record (see Run.Completeness), the error
// says TRUNCATED and where.
func (run *Run) Summarize(opt Options) (*Summary, error) {
	if opt.Window == 0 {
		opt.Window = run.Window
	}
	opt.NoSendTimes = opt.NoSendTimes || run.NoSendTimes
	s, err := summarize(&source{recs: run.Records, lines: run.Lines, tab: run.tab}, run, opt)
	if errors.Is(err, ErrNoRecords) {
		if c := run.Completeness(); c != nil && c.State == "truncated" {
			return nil, &truncatedError{c.Reason}
		}
	}
	if s != nil {
		s.Header = run.Header
		s.Completeness = completeness(run.Header, run.End, run.Cut, s.Requests.Offered)
		if w := s.Workload; w != nil && w.Arrivals != nil && run.Header != nil { // a closed loop's gaps are no arrival process
			w.Arrivals.Reading = inflight.LoopReading(w.Arrivals.Reading, run.Header.Load["loop"])
		}
		if run.End != nil && len(run.End.Notes) > 0 {
			s.Notes = append(slices.Clip(s.Notes), run.End.Notes...) // never into opt.Notes' array
		}
	}
	return s, err
}

// summarize computes the summary of src's records, counting also the rows
// that read set aside (its Rejected and Unlisted; its records are not
// read).
func summarize(src *source, read *Run, opt Options) (*Summary, error) {
	ps, err := checkOptions(opt)
	if err != nil {
		return nil, err
	}
	if src.len()+read.RejectedCount() == 0 {
		return nil, ErrNoRecords
	}

	s := &Summary{Method: opt.Method, Percentiles: ps, Absent: map[string]string{}, Notes: opt.Notes}
	if opt.Warmup != nil || opt.Stratify != nil {
		// Both read the records as a slice.
		src = src.asSlice()
	}
	if src.recs, s.Warmup, err = opt.Warmup.mark(src.recs); err != nil {
		return nil, err
	}
	classes := classifyPooling(src, true)
	defer classes.release()
	cat, bad, pooled := classes.cat, classes.bad, classes.pg
	all := &Run{Rejected: slices.Clone(read.Rejected), Unlisted: read.Unlisted}
	for _, e := range bad.Rejected {
		all.Reject(e)
	}
	all.Unlisted += bad.Unlisted
	if all.RejectedCount() > 0 && !opt.Lenient {
		return nil, joinRecordErrors(all.Rejected, all.Unlisted, nil)
	}
	s.Rejected = all.Rejected

	// Count, and size the samples.
	counted, each := tallyAll(src, cat, classes.each)
	a := &s.Requests
	*a = counted.a
	a.Offered = src.len() + read.RejectedCount()
	a.Rejected = all.RejectedCount()

	// The workload and the client's figures are described on another core
	// while the latencies are gathered here.
	var absent map[string]string
	var facts okFacts
	sideDone := make(chan struct{})
	go func() {
		defer close(sideDone)
		s.Workload, absent = describeWorkload(src, cat, &facts, opt.NoSendTimes)
		s.Client = clientStats(src, cat, opt, ps)
	}()
	defer func() { <-sideDone }() // an early return still waits for it

	got, at, err := gatherAll(src, cat, pooled, counted, each, opt.SLO)
	if err != nil {
		return nil, src.recordError(at, "chunks", err)
	}
	s.describeAll(src, cat, pooled, got, counted.nTPOT, opt)
	<-sideDone
	s.leaveOut(&facts, counted.nTPOT, counted.nTPOTOut)
	judged := got.slo
	got.release()
	for k, v := range absent {
		s.Absent[k] = v
	}
	if s.Client != nil && s.Client.Wait == nil {
		s.Absent["client.wait"] = "no measured record gives its wait (wait_ns): the wait is unknown"
		if s.Client.E2EFromScheduled != nil { // an open loop: its lateness too
			s.Absent["client.wait"] = "no measured record gives its wait (wait_ns): the wait and the lateness are unknown"
		}
	}
	if opt.NoSendTimes && s.Workload != nil { // left out by describeWorkload
		s.Absent["workload.arrivals"] = "the records carry no send times"
		s.Absent["workload.concurrency"] = "the records carry no send times"
	}

	w, werr := s.rates(counted, opt)
	if opt.SLO != nil {
		s.goodput(judged, w, werr, *opt.SLO)
	}
	if opt.Stratify != nil {
		st, err := stratify(src.recs, cat, *opt.Stratify, opt)
		if err != nil {
			return nil, err
		}
		s.Strata = st
	}
	return s, nil
}

// checkOptions checks opt and returns the percentiles it asks for.
func checkOptions(opt Options) ([]Percentile, error) {
	if err := opt.Method.valid(); err != nil {
		return nil, err
	}
	ps := opt.Percentiles
	if ps == nil {
		ps = DefaultPercentiles
	}
	for i, p := range ps {
		if slices.Contains(ps[:i], p) {
			return nil, fmt.Errorf("%w: %s asked for twice", ErrPercentile, p.Key())
		}
	}
	if opt.SLO != nil {
		if err := opt.SLO.validate(); err != nil {
			return nil, err
		}
	}
	if opt.Window < 0 {
		return nil, fmt.Errorf("%w: %v", ErrInvalidWindow, opt.Window)
	}
	if opt.Warmup != nil && opt.NoSendTimes {
		return nil, fmt.Errorf("%w: a warm-up cut is a send time, and the records carry no send times", ErrInvalidOption)
	}
	if opt.Stratify != nil {
		if err := opt.Stratify.check(); err != nil {
			return nil, err
		}
	}
	return ps, nil
}

// describeAll describes the gathered samples: TTFT, E2E, TPOT, the pooled
// gaps and the largest gaps, at once on the cores, or says why each is
// absent. nTPOT counts the ok records with a TPOT by their count, the
// unstreamed answers among them.
func (s *Summary) describeAll(src *source, cat []Category, pooled *pooledGaps, got *samples, nTPOT int, opt Options) {
	a, ps := &s.Requests, s.Percentiles
	tpots, maxGaps, gaps := got.tpots, got.maxGaps, got.gaps
	itl := ITLStats{NoChunks: got.noChunks, TokenBasis: got.tokenBasis, ChunkBasis: got.chunkBasis}

	describe := func(xs sample, member func(r *Record) bool) *Distribution {
		return s.describe(xs, src, cat, member)
	}
	var timedOK, timedTPOT func(*Record) bool = nil, hasTPOT // nil: every ok record
	if a.Unstreamed > 0 {
		timedOK = func(r *Record) bool { return !r.unstreamed() } // for nameRequests
		timedTPOT = func(r *Record) bool { return hasTPOT(r) && !r.unstreamed() }
	}
	// The distributions are taken at once, the cores sharing them.
	var wg sync.WaitGroup
	spawn := func(f func()) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f()
		}()
	}
	if a.OK == 0 {
		why := "no ok request"
		if a.measured() == 0 {
			why = a.nothingMeasured()
		}
		s.Absent[keyTTFT], s.Absent[keyE2E] = why, why
	} else {
		if a.OK > a.Unstreamed { // else absent, as leaveOut says
			spawn(func() { s.TTFT = describe(got.ttft, timedOK) })
		}
		spawn(func() { s.E2E = describe(got.e2e, nil) })
	}
	switch {
	case len(tpots) > 0:
		spawn(func() {
			s.TPOT = &TPOTStats{Distribution: *describe(flat(tpots), timedTPOT), GapWeightedMean: got.weighted.mean(), Excluded: a.OneToken}
		})
	case nTPOT > 0: // every one unstreamed
		s.Absent[keyTPOT] = fmt.Sprintf("no ok request has two or more output tokens by a server count that were streamed (%d one-token requests, %d without a usable count, %d whose text came at once)",
			a.OneToken, a.Uncounted.Total(), a.Unstreamed)
	case a.OK > 0 && a.Uncounted.Total() > 0:
		s.Absent[keyTPOT] = fmt.Sprintf("no ok request has two or more output tokens by a server count (%d one-token requests, %d without a usable count)", a.OneToken, a.Uncounted.Total())
	case a.OK > 0:
		s.Absent[keyTPOT] = fmt.Sprintf("no ok request has two or more output tokens (%d one-token requests)", a.OneToken)
	}
	if gaps.N > 0 {
		spawn(func() { itl.Distribution = describeSample(gaps, pooled.mo, opt.Method, ps) })
		spawn(func() { s.MaxGap = describe(flat(maxGaps), hasGaps) })
	} else if a.OK > 0 {
		s.Absent[keyITL] = reason.NoGaps(a.OK, got.noChunks)
		s.Absent[keyMaxGap] = s.Absent[keyITL]
	}
	wg.Wait()
	if gaps.N > 0 {
		if itl.ChunkBasis > 0 {
			itl.Basis = BasisChunk
		}
		s.ITL = &itl
	}
}

// describe summarizes one sample of per-request values, naming the
// request at each nearest-rank percentile: xs holds one sample for each
// ok record for which member is true (nil: every ok record).
func (s *Summary) describe(xs sample, src *source, cat []Category, member func(r *Record) bool) *Distribution {
	var mo moments
	xs.Each(func(seg []time.Duration) {
		for _, x := range seg {
			mo.Add(x)
		}
	})
	d := describeSample(xs, mo, s.Method, s.Percentiles)
	if s.Method == NearestRank {
		nameRequests(&d, xs, src, cat, member)
	}
	return &d
}

// leaveOut says what the ok records' facts and the unstreamed answers,
// which gatherAll left out of TTFT and TPOT, take out of the figures: the
// requests without a count out of the gaps' basis. nTPOT counts the ok
// records with a TPOT by their count, out the unstreamed among them.
func (s *Summary) leaveOut(f *okFacts, nTPOT, out int) {
	if it := s.ITL; it != nil && f.noCountChunks > 0 {
		it.ChunkBasis -= f.noCountChunks
		it.UnknownBasis = f.noCountChunks
	}
	n, a := s.Requests.Unstreamed, &s.Requests
	if n > 0 && s.TTFT != nil {
		s.Absent[keyTTFT+"_unstreamed"] = fmt.Sprintf("%d of the %d ok requests left out: their text came at once (%s), so they have no time to first token", n, a.OK, reason.AtOnce(f.oneChunk))
	} else if n > 0 && n == a.OK {
		s.Absent[keyTTFT] = "every ok request's text came at once (" + reason.AtOnce(f.oneChunk) + "), so it has no time to first token or per token"
	}
	if out > 0 && s.TPOT != nil {
		s.TPOT.Unstreamed, s.Absent[keyTPOT+"_unstreamed"] = out, fmt.Sprintf("%d of the %d ok requests of two or more counted tokens left out: their text came at once (not streamed), so they have no time per token", out, nTPOT)
	}
}

// rates sets the throughput over the run's window, or says why it is
// absent, and returns the window and why there is none.
func (s *Summary) rates(counted tally, opt Options) (Window, error) {
	a := &s.Requests
	var w Window
	var werr error
	switch {
	case opt.Window > 0:
		w, werr = declaredWindow(opt.Window)
	case opt.NoSendTimes:
		werr = fmt.Errorf("%w: the records carry no send times, so no window can be derived; declare one (report --window; Options.Window in Go)", ErrInvalidWindow)
	default:
		w, werr = counted.wb.window()
	}
	if werr == nil {
		t := throughput(w, a.OK, a.OK-a.Uncounted.Total(), counted.nPrompt, counted.outTokens, counted.promptTokens)
		s.Throughput = &t
		if counted.promptTokens == 0 {
			s.Absent["prompt_tokens_per_s"] = "no ok record carries a prompt token count"
		}
		if a.OK > 0 && t.CountedRequests == 0 {
			s.Absent["output_tokens_per_s"] = "no ok request has an output token count (" + a.Uncounted.why() + ")"
		}
	} else if a.measured() == 0 && opt.Window == 0 {
		s.Absent["throughput"] = a.nothingMeasured()
	} else {
		s.Absent["throughput"] = strings.TrimPrefix(werr.Error(), ErrInvalidWindow.Error()+": ") // a reason, not an error
	}
	return w, werr
}

// goodput judges the measured requests against slo. Warm-up, preflight
// and unfinished requests are counted, never measured: they are not
// judged.
func (s *Summary) goodput(judged goodputCounter, w Window, werr error, slo SLO) {
	a := &s.Requests
	if measured := a.Offered - a.Warmup - a.Preflight - a.Unfinished; measured > 0 {
		g := judged.finish(slo, measured, w, werr)
		if s.Goodput = &g; werr != nil {
			s.Absent["goodput.requests_per_s"] = strings.TrimPrefix(werr.Error(), ErrInvalidWindow.Error()+": ")
		}
	} else if a.Unfinished > 0 {
		s.Absent["goodput"] = "every request was warm-up, preflight or unfinished at the run's end: none was judged"
	} else {
		s.Absent["goodput"] = "every request was warm-up or preflight: none was judged"
	}
}

// nameRequests sets each point's ID to the id of the first request, in
// input order, whose sample equals the point's value. xs holds one sample
// for each ok record for which member is true, in input order; a nil
// member means every ok record, which the categories alone then find.
func nameRequests(d *Distribution, xs sample, src *source, cat []Category, member func(r *Record) bool) {
	// The position in xs of each point's first equal sample, in order;
	// then one pass over the records, counting samples, finds the records
	// at those positions.
	type named struct{ at, point int }
	var want []named
	for k := range d.Points {
		if j := xs.Index(d.Points[k].Value); j >= 0 {
			want = append(want, named{j, k})
		}
	}
	slices.SortFunc(want, func(a, b named) int { return a.at - b.at })
	// take names the points at position j after record i, with id.
	take := func(j int, id func() string) {
		for len(want) > 0 && want[0].at == j {
			d.Points[want[0].point].ID = id()
			want = want[1:]
		}
	}
	j := 0
	if member == nil {
		for i, c := range cat {
			if len(want) == 0 {
				return
			}
			if c == CategoryOK {
				take(j, func() string { return src.id(i) })
				j++
			}
		}
		return
	}
	// The windows are read without their ids: only the few named need
	// theirs.
	for base, w := range src.windows(0, src.len(), noIDs) {
		for k := range w {
			if len(want) == 0 {
				return
			}
			if i := base + k; cat[i] == CategoryOK && member(&w[k]) {
				take(j, func() string { return src.id(i) })
				j++
			}
		}
	}
}

// hasTPOT and hasGaps say which ok records have a TPOT sample and a
// max-gap sample (their gaps pooled).
func hasTPOT(r *Record) bool { return r.CompletionTokens >= 2 && r.counted() }
func hasGaps(r *Record) bool { return len(r.Chunks) >= 2 }

// ClientStats are the distributions of what a load generator knew of the
// measured requests (warm-up and rejected records left out). A
// distribution is nil when no record carried its fact.
type ClientStats struct {
	// Lateness is how long after its scheduled time each request of an
	// open loop was begun: coordinated omission made visible.
	Lateness *Distribution
	// Wait is the client's own wait before each request was written,
	// over every request that records it: never inside TTFT.
	Wait *Distribution
	// FirstAnswer is the time to the first answer (non-reasoning) chunk of
	// ok requests, from Sent: TTFT's counterpart for reasoning models;
	// like TTFT (and TTFTFromScheduled) it leaves out unstreamed answers.
	FirstAnswer *Distribution
	// TTFTFromScheduled and E2EFromScheduled are TTFT and E2E of the ok
	// requests of an open loop measured from each request's scheduled time
	// instead of its send: Sent − Scheduled + TTFT, and likewise E2E. They
	// include the time a request waited to be sent (its lateness and the
	// client's wait), which a slow client or a full concurrency cap would
	// otherwise hide: coordinated omission corrected, as wrk2 and
	// HdrHistogram correct it. Nil without scheduled ok requests.
	TTFTFromScheduled *Distribution
	E2EFromScheduled  *Distribution
	// ReasoningTokens sums the reasoning tokens of ok requests whose usage
	// gave them, over ReasoningRequests requests.
	ReasoningTokens   int64
	ReasoningRequests int
}

// clientStats summarizes the client-side facts of the measured records;
// nil when none has any.
func clientStats(src *source, cat []Category, opt Options, ps []Percentile) *ClientStats {
	if src.tab != nil {
		return nil // a table holds no client facts
	}
	var late, wait, answer, ttftDue, e2eDue []time.Duration
	cs := &ClientStats{}
	any := false
	for i := range src.recs {
		c := src.recs[i].Client
		if c == nil || cat[i] == CategoryRejected || cat[i] == CategoryWarmup {
			continue
		}
		if any = true; !c.NoWait {
			wait = append(wait, c.Wait)
		}
		if l, ok := c.Lateness(src.recs[i].Sent); ok {
			late = append(late, l)
		}
		r := &src.recs[i]
		if cat[i] != CategoryOK {
			continue
		}
		timed := !r.unstreamed() // else no time to first token, as in TTFT
		if c.HasAnswer && timed {
			answer = append(answer, c.FirstAnswer)
		}
		if due := r.Sent - c.Scheduled; c.HasSchedule { // from when it was due to when it was written
			e2eDue = append(e2eDue, due+r.last())
			if timed {
				ttftDue = append(ttftDue, due+r.first())
			}
		}
		if c.HasReasoning {
			cs.ReasoningTokens += int64(c.ReasoningTokens)
			cs.ReasoningRequests++
		}
	}
	if !any {
		return nil
	}
	describe := func(xs []time.Duration) *Distribution {
		if len(xs) == 0 {
			return nil
		}
		d, err := Describe(xs, opt.Method, ps...)
		if err != nil {
			return nil
		}
		return &d
	}
	cs.Lateness, cs.Wait, cs.FirstAnswer = describe(late), describe(wait), describe(answer)
	cs.TTFTFromScheduled, cs.E2EFromScheduled = describe(ttftDue), describe(e2eDue)
	return cs
}
