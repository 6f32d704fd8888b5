// Package drive sends a planned load of streaming requests to an LLM
// endpoint and observes every one with the observe package: a closed loop
// with exactly C requests in flight (the specification's semaphore), or an
// open loop of Poisson or gamma arrivals whose every request keeps its
// scheduled time, so that a slow client or server cannot hide latency
// (coordinated omission). A warm-up, by count, by duration or by the
// specification's rule, is sent first and marked; an interrupted run, or
// one whose duration ended, stops sending, gives the requests in flight a
// grace period, and loses nothing it measured.
//
// Nothing is hidden: a request the server may have received is never
// re-sent (each attempt is one record, a dropped connection a failure with
// its reason; see KeepAlive for the one request sent again), every request
// has a timeout, a stall limit and a TLS handshake limit (an https:// URL
// to a server of plain HTTP fails saying so, with the http:// URL to
// use), and the requests sent before a run
// (TestRequest, the sizing requests of SyntheticPrompts) are returned to be
// kept with it, on its clock.
package drive

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/observe"
)

// A Plan describes a run.
type Plan struct {
	URL       string      // the endpoint's full URL, e.g. http://127.0.0.1:8000/v1/chat/completions
	API       observe.API // its wire format
	Model     string
	MaxTokens int // the requested output length; 0 leaves it to the server
	// MaxTokensEach, when set, gives each prompt its own output length
	// (request k takes MaxTokensEach[k mod its length]), as a length
	// spread does; MaxTokens is then unused.
	MaxTokensEach []int
	Prompts       []string                   // used in turn; at least one
	Extra         map[string]json.RawMessage // request fields merged over the defaults, such as ignore_eos
	Header        http.Header                // extra request headers (an API key)

	// The measured part: Requests requests, or as many as Duration allows.
	Requests int
	Duration time.Duration

	// Concurrency is the closed loop's number of requests in flight (after
	// a failure, the slot waits: 10 ms, doubling with each failure in a
	// row, at most 1 s, so that instant failures are not re-sent at once). With
	// Rate, it caps an open loop's requests in flight instead (0: no cap);
	// a request that waits for a slot is late, and its lateness is kept.
	Concurrency int
	// Rate, when positive, makes an open loop of Rate arrivals a second,
	// gamma distributed with shape Burstiness (0 or 1: Poisson).
	Rate       float64
	Burstiness float64
	// Seed fixes the plan: the arrivals, the lengths drawn and the prefix
	// group each request draws.
	Seed uint64
	// PromptSalt, with Seed, decides the salts of the synthetic prompts
	// (SyntheticPrompts, SizePrompts, Breakdown's sizing): their text,
	// never the plan. A server's prefix cache holds what one run sent, so
	// a run that sends the same prompts again (one Seed, one PromptSalt)
	// finds them cached: give each run a random PromptSalt to measure it
	// cold, or one run's again to send its very prompts.
	PromptSalt uint64
	// Arrivals, when set, draws the open loop's arrivals from ON-OFF or
	// Pareto instead of gamma; Rate is then its MeanRate.
	Arrivals Arrivals
	// Replay, when set, is the measured part's every request, in order of
	// Scheduled (a replayed trace): request k is sent at the measured
	// part's start plus Replay[k-1].Scheduled, with its MaxTokens and a
	// prompt of its PromptTokens made by Sizing, without streaming when it
	// is Unstreamed (refused for a TGI URL without /generate_stream).
	// Requests is then
	// len(Replay), Rate its mean rate, and there is no warm-up.
	Replay []Request
	// Sizing, when set, makes each request's prompt as it is sent: one of
	// PromptTokensEach[k mod its length] tokens for request k (its
	// Replay row's PromptTokens in a replay), in place of Prompts.
	Sizing           *Sizing
	PromptTokensEach []int
	// PrefixBlockTokens is the tokens of a shared prefix block: each
	// Replay row's PrefixBlocks (Mooncake's hash_ids: 512, times the
	// replay's token scale), or the group prefix each request draws under
	// PrefixGroups. With a Sizing, a request's prompt begins with its
	// blocks' texts, byte-identical wherever their ids agree (prefix.go).
	PrefixBlockTokens int
	// PrefixGroups, when positive, gives every request one of
	// PrefixGroups shared prefixes of PrefixBlockTokens tokens (a system
	// prompt each), drawn from the seed, before a tail of its own; the
	// prompts are made by the Sizing (given Prompts are sent as given).
	PrefixGroups int
	// ExactOutput asks each request for exactly its max_tokens where the
	// API has a way: ignore_eos, and min_tokens equal to max_tokens, for
	// chat and completions (vLLM honours both; SGLang and llama.cpp's
	// server ignore_eos), unless Extra gives them (ExactFields says which
	// are sent). A server that stops early anyway shows in the summary's
	// early stops, never as a different workload.
	ExactOutput bool

	// Sessions, when positive, makes the measured part Sessions multi-turn
	// conversations of Turns requests each, run at once (sessions.go):
	// turn k is sent ThinkTime after turn k−1's answer ended, with the
	// conversation so far, answers included, as its context. Its records
	// carry Client.Session ("s1", …) and Client.Turn (from 1). Requests,
	// Duration, Rate, Concurrency and Replay are then not given, and
	// Warmup.Requests counts whole warm-up sessions of Turns turns, at most
	// Sessions at once (a warm-up of a Duration, or Auto, is refused).
	Sessions, Turns int
	ThinkTime       time.Duration

	Warmup Warmup

	// Timeout bounds each request, from its call to its stream's end, and
	// Stall the time without a byte from the server; 0 takes
	// DefaultTimeout and DefaultStall, a negative value none.
	Timeout, Stall time.Duration
	// Grace is how long requests in flight may finish after sending stopped
	// early: an interrupt, or the end of Duration. 0: 10 s. Closing Abort
	// ends it at once.
	Grace  time.Duration
	Abort  <-chan struct{}
	Client *http.Client // nil: a client of the plan's own (see KeepAlive)
	// KeepAlive reuses connections between requests. Without it each
	// request has a connection of its own (its setup is the client's wait,
	// never inside TTFT). A server may close a kept-alive connection as the
	// next request is written on it: llama.cpp's server (3.21.1, measured)
	// closes every connection right after its streamed response, so 23–33%
	// of kept-alive requests used to fail with an EOF. With KeepAlive a
	// request on a reused connection sends its body only once the server
	// answered 100 Continue there; when the connection ends first, the
	// server never had the request's content, and it is sent again on a
	// fresh connection and measured from that send. Any other failure is
	// the request's, never re-sent: the server receives exactly the
	// requests recorded. Against llama.cpp's server nothing is reused.
	// KeepAlive applies to the plan's own client (Client nil).
	KeepAlive bool

	// Epoch is the run's clock zero, where Record.Sent is 0; zero: when Run
	// begins. A caller that sends requests of its own before the run
	// (SyntheticPrompts, TestRequest) gives them and Run one epoch.
	Epoch time.Time
	// OnResult, when set, is given every request as it ends, one at a time
	// (never concurrently), in the order they end: where a caller writes
	// each record as it comes.
	OnResult func(*observe.Result)

	now func() time.Time // the records' clock; nil: time.Now (tests give a fake)
	// unstreamed is set on the plan's copy for one request that is sent
	// without streaming (its Replay row's Unstreamed).
	unstreamed bool

	// Progress, when set, is called about four times a second.
	Progress func(Progress)
	// OnMeasure, when set, is called as the measured part begins (every
	// warm-up request has finished: the run drains between the two) and as
	// it ends (every measured request has finished): where a caller scrapes
	// the server, so that the scrapes bracket exactly the measured requests.
	OnMeasure func(begin bool)
}

// Warmup is the part of a run sent before the measured part: marked
// warm-up in every record, counted, never measured.
type Warmup struct {
	Requests int           // a fixed count, or
	Duration time.Duration // a fixed time, or
	// Auto sends warm-up requests until Rule (LessonsWarmup when zero) finds
	// steady state among them, for at most MaxRequests (default 500); every
	// request sent before the rule fired is warm-up.
	Auto        bool
	Rule        llmmetrics.WarmupRule
	MaxRequests int
}

// Progress is a run's state, for a progress line.
type Progress struct {
	Done, Total int // measured requests finished, and planned (0 for a duration)
	Warmup      int // warm-up requests finished
	Errors      int // measured requests that did not end ok
	Elapsed     time.Duration
	TTFTp50     time.Duration // running median TTFT of the measured ok requests
}

// An Outcome is a finished run: every request sent, in the order sent, each
// exactly once.
type Outcome struct {
	Start   time.Time // the wall clock at the run's epoch (Sent 0)
	Results []*observe.Result
	// Interrupted is true when the run's context ended it early.
	Interrupted bool
	// Warmup says how the warm-up ended (for Auto: the rule's verdict).
	Warmup string
	// MeasureStart and MeasureEnd bracket the measured part: from when its
	// first request could be sent (the warm-up drained) to when its last
	// finished.
	MeasureStart, MeasureEnd time.Time
	// Unsent counts the arrivals of an open loop of a Duration that were
	// due before its deadline but never sent: they still waited, for a slot
	// under the Concurrency cap or for a client behind its schedule, when
	// sending stopped. Measured part only.
	Unsent int
	// UnsentCounted says Unsent is a count: the measured part ended by
	// its deadline or its count before the run's context ended. A run
	// interrupted first has no count (an interrupt stops the schedule,
	// it does not hold it), and its Unsent, 0, is no figure.
	UnsentCounted bool
}

// Run sends the plan's requests and observes them until the plan is done
// or ctx ends; then it stops sending, waits up to Plan.Grace for the
// requests in flight, cancels the rest (recorded as cancelled) and returns
// everything sent. It returns an error only for a plan it cannot run.
func Run(ctx context.Context, p Plan) (*Outcome, error) {
	if err := Check(p); err != nil {
		return nil, err
	}
	r, err := newRunner(p)
	if err != nil {
		return nil, err
	}
	return r.run(ctx), nil
}

// Check reports what makes a plan impossible to run, before anything is
// sent.
func Check(p Plan) error {
	u, err := url.Parse(p.URL)
	switch {
	case err != nil || !u.IsAbs():
		return fmt.Errorf("drive: --url %q is not an absolute URL", p.URL)
	case len(p.Prompts) == 0 && p.Sizing == nil:
		return errors.New("drive: no prompts")
	case p.Sizing != nil && len(p.PromptTokensEach) == 0 && len(p.Replay) == 0:
		return errors.New("drive: a Sizing without the prompt lengths to make")
	}
	if err := checkSessions(p); err != nil {
		return err
	}
	if err := checkLoad(p.load()); err != nil {
		return err
	}
	if err := checkPrefix(p); err != nil {
		return err
	}
	if p.Arrivals.Process != "" {
		if err := p.Arrivals.check(); err != nil {
			return err
		}
	}
	return checkReplay(p)
}

// checkLoad checks the plan's size, loop, arrivals and warm-up.
func checkLoad(p Plan) error {
	switch {
	case (p.Requests > 0) == (p.Duration > 0):
		return errors.New("drive: give either a number of requests or a duration")
	case p.Requests < 0 || p.Duration < 0 || p.Concurrency < 0 || p.Rate < 0 || p.MaxTokens < 0:
		return errors.New("drive: a negative count, duration, concurrency, rate or max_tokens")
	case math.IsNaN(p.Rate) || math.IsInf(p.Rate, 0) || math.IsNaN(p.Burstiness) || math.IsInf(p.Burstiness, 0) || p.Burstiness < 0:
		return fmt.Errorf("drive: rate %v and burstiness %v: want finite, non-negative numbers", p.Rate, p.Burstiness)
	case p.Rate == 0 && p.Concurrency == 0:
		return errors.New("drive: give a concurrency (closed loop) or a rate (open loop)")
	case p.Arrivals.Process != "" && p.Rate != p.Arrivals.MeanRate():
		return fmt.Errorf("drive: the rate of arrivals %s is %v, not %v", p.Arrivals, p.Arrivals.MeanRate(), p.Rate)
	case p.Warmup.Requests < 0 || p.Warmup.Duration < 0 || p.Warmup.Auto && (p.Warmup.Requests > 0 || p.Warmup.Duration > 0):
		return errors.New("drive: give one warm-up: a count, a duration or auto")
	}
	return nil
}

// runner runs one plan.
type runner struct {
	p        Plan
	obs      *observe.Observer
	path     string
	arrivals gaps
	slots    chan struct{} // nil: no cap

	hard context.Context // the requests' context: ends with the grace period
	stop context.Context // the run's context: ends when sending stops early
	emit sync.Mutex      // serializes Plan.OnResult

	mu        sync.Mutex
	results   []*observe.Result
	measured  int // measured requests finished
	warmDone  int
	errs      int
	ttfts     []time.Duration
	warmRecs  []llmmetrics.Record // finished warm-up records, for Auto
	steady    chan struct{}       // closed when Auto found steady state
	steadyMsg string
	failRun   int // failures in a row, for the closed loop's back-off
	unsent    int // Outcome.Unsent
}

func newRunner(p Plan) (*runner, error) {
	u, _ := url.Parse(p.URL)
	r := &runner{p: p, obs: &observe.Observer{Client: NewClient(p), Epoch: p.Epoch, Now: p.now, KeepText: p.Sessions > 0}, path: u.Path, steady: make(chan struct{})}
	if p.Rate > 0 {
		a, err := newGaps(p)
		if err != nil {
			return nil, err
		}
		r.arrivals = a
	}
	if c := p.load().Concurrency; c > 0 {
		r.slots = make(chan struct{}, c)
	}
	if p.Warmup.Auto {
		if p.Warmup.Rule == (llmmetrics.WarmupRule{}) {
			r.p.Warmup.Rule = llmmetrics.LessonsWarmup
		}
		if p.Warmup.MaxRequests == 0 {
			r.p.Warmup.MaxRequests = 500
		}
	}
	return r, nil
}

// errGraceOver is the cause given to requests cancelled when the grace
// period ran out.
var errGraceOver = errors.New("still in flight when the grace period after sending stopped ran out")

func (r *runner) run(ctx context.Context) *Outcome {
	grace := r.p.Grace
	if grace == 0 {
		grace = 10 * time.Second
	}
	// Requests run under hard, which ends Grace after sending stopped early
	// (ctx ended, or the duration did), or at once when Abort is closed.
	hard, cancelHard := context.WithCancelCause(context.Background())
	defer cancelHard(nil)
	r.hard, r.stop = hard, ctx
	stopped := make(chan struct{})
	var stopOnce sync.Once
	stopSending := func() { stopOnce.Do(func() { close(stopped) }) }
	go func() {
		select {
		case <-ctx.Done():
		case <-stopped:
		case <-hard.Done():
			return
		}
		t := time.NewTimer(grace)
		defer t.Stop()
		select {
		case <-t.C:
			cancelHard(errGraceOver)
		case <-r.p.Abort:
			cancelHard(errors.New("still in flight when a second interrupt ended the grace period"))
		case <-hard.Done():
		}
	}()
	start := r.obs.Epoch
	if start.IsZero() {
		start = time.Now()
		r.obs.Epoch = start
	}
	out := &Outcome{Start: start}
	stopProgress := r.progress(time.Now())
	var wg sync.WaitGroup
	if r.p.Sessions > 0 {
		out.Warmup = r.warmSessions(ctx) // sessions.go
	} else {
		out.Warmup = r.phase(ctx, &wg, true)
	}
	wg.Wait() // the warm-up drains before the measured part
	out.MeasureStart = time.Now()
	if r.p.OnMeasure != nil {
		r.p.OnMeasure(true)
	}
	if ctx.Err() == nil && r.p.Sessions > 0 {
		r.sessions(ctx, &wg)
	} else if ctx.Err() == nil {
		r.phase(ctx, &wg, false)
		out.Unsent, out.UnsentCounted = r.unsent, ctx.Err() == nil
		if r.p.Duration > 0 {
			stopSending() // the duration is over: the requests in flight get the grace
		}
	}
	wg.Wait()
	out.MeasureEnd = time.Now()
	if r.p.OnMeasure != nil {
		r.p.OnMeasure(false)
	}
	stopProgress()
	out.Interrupted = ctx.Err() != nil
	out.Results = r.results
	return out
}

// phase dispatches the warm-up or the measured requests; it returns how
// the warm-up ended. It stops when ctx ends, or at the phase's duration.
func (r *runner) phase(ctx context.Context, wg *sync.WaitGroup, warm bool) string {
	w := r.p.Warmup
	count, dur := r.p.Requests, r.p.Duration
	if warm {
		switch {
		case w.Auto:
			count = w.MaxRequests
		case w.Requests > 0 || w.Duration > 0:
			count, dur = w.Requests, w.Duration
		default:
			return "no warm-up"
		}
	}
	began := time.Now()
	sendCtx := ctx
	if dur > 0 {
		var cancel context.CancelFunc
		sendCtx, cancel = context.WithDeadline(ctx, began.Add(dur))
		defer cancel()
	}
	var next time.Duration // the open loop's next arrival, from the epoch
	if r.arrivals != nil {
		next = began.Sub(r.obs.Epoch)
		r.arrivals.restart()
	}
	sent := 0
	for i := 0; count == 0 || i < count; i++ {
		var sched *time.Duration
		if r.arrivals != nil {
			next += r.arrivals.next()
			at := next
			sched = &at
			if dur > 0 && r.obs.Epoch.Add(at).Sub(began) > dur {
				break
			}
			if !sleepUntil(sendCtx, r.obs.Epoch.Add(at)) {
				// Due before the deadline, which came first: unsent.
				r.countUnsent(ctx, sendCtx, next, began, dur, count-i, warm)
				break
			}
		} else if sendCtx.Err() != nil {
			break
		}
		if warm && w.Auto && r.isSteady() {
			break
		}
		if r.slots != nil && !r.acquire(sendCtx, warm) {
			r.countUnsent(ctx, sendCtx, next, began, dur, count-i, warm)
			break
		}
		if sendCtx.Err() != nil {
			r.release() // the time ran out while waiting for a slot
			r.countUnsent(ctx, sendCtx, next, began, dur, count-i, warm)
			break
		}
		res := r.reserve()
		sent++
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer r.release()
			r.issue(res, sched, warm)
		}()
	}
	if warm && ctx.Err() != nil && !r.isSteady() {
		// Interrupted: the warm-up did not run its course; say what it did.
		return fmt.Sprintf("the run was interrupted during the warm-up, after sending %d warm-up requests%s", sent, warmupPlanned(w))
	}
	if warm && w.Auto {
		r.mu.Lock()
		defer r.mu.Unlock()
		if r.steadyMsg == "" {
			return fmt.Sprintf("warm-up never reached steady state by the rule within %d requests; the measurement follows anyway", w.MaxRequests)
		}
		return r.steadyMsg
	}
	if warm {
		if w.Requests > 0 {
			return fmt.Sprintf("a fixed warm-up of %d requests", w.Requests)
		}
		return fmt.Sprintf("a fixed warm-up of %v", w.Duration)
	}
	return ""
}

// warmupPlanned says, after an interrupted warm-up's count, what it was
// to be.
func warmupPlanned(w Warmup) string {
	switch {
	case w.Auto:
		return fmt.Sprintf(" (auto: the rule had not found steady state; at most %d)", w.MaxRequests)
	case w.Requests > 0:
		return fmt.Sprintf(" of a fixed %d", w.Requests)
	}
	return fmt.Sprintf(" in a fixed warm-up of %v", w.Duration)
}

// countUnsent counts, when an open loop's measured part reached its
// deadline while the arrival due at next waited (for a slot, or for the
// loop to reach it), that arrival
// and every later one due before the deadline (drawn from the schedule,
// which nothing draws from afterwards), up to the left of a count (none
// when left ≤ 0: no count). An interrupt is not counted: it stopped the
// schedule, it did not hold it.
func (r *runner) countUnsent(ctx, sendCtx context.Context, next time.Duration, began time.Time, dur time.Duration, left int, warm bool) {
	if warm || r.arrivals == nil || dur <= 0 || ctx.Err() != nil || sendCtx.Err() == nil {
		return
	}
	deadline := began.Add(dur).Sub(r.obs.Epoch)
	for ; next <= deadline && (left <= 0 || r.unsent < left); next += r.arrivals.next() {
		r.unsent++
	}
}

// acquire takes a slot of the closed loop or of the open loop's cap. In
// Auto warm-up it also gives up when the rule fires.
func (r *runner) acquire(ctx context.Context, warm bool) bool {
	var steady <-chan struct{}
	if warm && r.p.Warmup.Auto {
		steady = r.steady
	}
	select {
	case r.slots <- struct{}{}:
		return true
	case <-ctx.Done():
		return false
	case <-steady:
		return false
	}
}

func (r *runner) release() {
	if r.slots != nil {
		<-r.slots
	}
}

// reserve adds a result in send order and returns it, so that every
// request dispatched is in the outcome exactly once. Its id is its place
// in send order, the plan's row of an open or a closed loop.
func (r *runner) reserve() *observe.Result { return r.reserveAs(0) }

// reserveAs is reserve of the request whose id is n, its row of the plan
// (a session's turn: sessions.go), or its place in send order for n 0.
func (r *runner) reserveAs(n int) *observe.Result {
	res := &observe.Result{}
	r.mu.Lock()
	r.results = append(r.results, res)
	if n == 0 {
		n = len(r.results)
	}
	res.Record.ID = strconv.Itoa(n)
	r.mu.Unlock()
	return res
}

// issue sends one request and fills res.
func (r *runner) issue(res *observe.Result, sched *time.Duration, warm bool) {
	id := res.Record.ID
	n, _ := strconv.Atoi(id)
	prompt, maxTokens := r.p.request(n)
	p := r.p
	p.unstreamed = p.unstreamedAt(n)
	*res = *send(r.hard, r.obs, p, r.path, prompt, maxTokens, id, warm)
	rec := &res.Record
	if sched != nil {
		// Its lateness is Sent − Wait − Scheduled: from when it was due to
		// when the call began, after waiting for the goroutine and a slot.
		rec.Client.Scheduled, rec.Client.HasSchedule = *sched, true
	}
	r.done(res, warm)
	r.backOff(rec.Status == llmmetrics.StatusOK)
	if r.p.OnResult != nil {
		r.emit.Lock()
		r.p.OnResult(res)
		r.emit.Unlock()
	}
}

// send sends one request of the plan under its timeout and returns what
// was observed, always with a record: a request that could not be sent at
// all is an error record stamped now. The record is named id, marked
// warm-up or not, with its max_tokens. A request cancelled with a cause
// (the grace period ran out) says so in its message.
func send(ctx context.Context, obs *observe.Observer, p Plan, path, prompt string, maxTokens int, id string, warm bool) *observe.Result {
	parent := ctx
	timeout := p.Timeout
	if timeout == 0 {
		timeout = DefaultTimeout
	}
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	req, err := newRequest(ctx, p, path, prompt, maxTokens)
	var res *observe.Result
	if err == nil {
		res, err = obs.Do(req, p.API, id)
	}
	if err != nil {
		res = &observe.Result{}
		res.Record.Status, res.Record.Message = llmmetrics.StatusError, err.Error()
		res.Record.Sent = time.Since(obs.Epoch)
	}
	rec := &res.Record
	rec.ID, rec.Warmup, rec.MaxTokens = id, warm, maxTokens
	if rec.Client == nil { // never sent: no observation, no wait
		rec.Client = &llmmetrics.ClientSide{NoWait: true}
	}
	if rec.Status == llmmetrics.StatusCancelled {
		// The observer's message may already be the cause's own words.
		if cause := context.Cause(parent); cause != nil && cause != context.Canceled && !strings.Contains(rec.Message, cause.Error()) {
			rec.Message = cause.Error() + " (" + rec.Message + ")"
		}
	}
	if rec.Status == llmmetrics.StatusTimeout && timeout > 0 && errors.Is(ctx.Err(), context.DeadlineExceeded) && parent.Err() == nil {
		rec.Message = fmt.Sprintf("past the request timeout of %v (%s)", timeout, rec.Message)
	}
	return res
}

// Back-off of a closed loop after failures: the slot of a failed request
// waits backoffBase·2^(k−1) after the k-th failure in a row (at most
// backoffMax) before the next request takes it, so that a server failing
// at once is not sent thousands of instant failures. An open loop keeps
// its schedule.
const (
	backoffBase = 10 * time.Millisecond
	backoffMax  = time.Second
)

// backOff holds the caller's slot after a failure in a closed loop.
func (r *runner) backOff(ok bool) {
	if r.arrivals != nil {
		return
	}
	r.mu.Lock()
	if ok {
		r.failRun = 0
		r.mu.Unlock()
		return
	}
	r.failRun++
	d := backoffMax
	if r.failRun <= 7 {
		d = min(backoffMax, backoffBase<<(r.failRun-1))
	}
	r.mu.Unlock()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-r.stop.Done():
	}
}

// done counts a finished request and, in Auto warm-up, asks the rule
// whether steady state has begun.
func (r *runner) done(res *observe.Result, warm bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	rec := res.Record
	if warm {
		r.warmDone++
		if r.p.Warmup.Auto && r.steadyMsg == "" {
			rec.Warmup = false
			r.warmRecs = append(r.warmRecs, rec)
			if cut, err := r.p.Warmup.Rule.Detect(r.warmRecs); err == nil && cut.Steady {
				r.steadyMsg = fmt.Sprintf("warm-up ended after %d requests: %s", len(r.warmRecs), cut.Reason)
				close(r.steady)
			}
		}
		return
	}
	r.measured++
	if rec.Status != llmmetrics.StatusOK {
		r.errs++
	} else if rec.CompletionTokens > 0 && len(rec.Chunks) > 0 {
		r.ttfts = append(r.ttfts, rec.Chunks[0])
	}
}

func (r *runner) isSteady() bool {
	select {
	case <-r.steady:
		return true
	default:
		return false
	}
}

// progress reports the run's state about four times a second until the
// returned function is called.
func (r *runner) progress(start time.Time) func() {
	if r.p.Progress == nil {
		return func() {}
	}
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(250 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-stop:
				r.p.Progress(r.snapshot(start))
				return
			case <-t.C:
				r.p.Progress(r.snapshot(start))
			}
		}
	}()
	return func() { close(stop); <-done }
}

func (r *runner) snapshot(start time.Time) Progress {
	r.mu.Lock()
	defer r.mu.Unlock()
	p := Progress{Done: r.measured, Total: r.p.load().Requests, Warmup: r.warmDone, Errors: r.errs, Elapsed: time.Since(start)}
	if len(r.ttfts) > 0 {
		xs := slices.Clone(r.ttfts)
		slices.Sort(xs)
		p.TTFTp50 = xs[(len(xs)-1)/2]
	}
	return p
}

// sleepUntil waits until t, or until ctx ends (false).
func sleepUntil(ctx context.Context, t time.Time) bool {
	d := time.Until(t)
	if d <= 0 {
		return ctx.Err() == nil
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return true
	case <-ctx.Done():
		return false
	}
}
