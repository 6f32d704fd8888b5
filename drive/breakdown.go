package drive

import (
	"context"
	cryptorand "crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"net/url"
	"slices"
	"time"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/observe"
)

// A BreakdownPlan describes a TTFT breakdown run (the specification's cold,
// sequential requests per prompt length): for each length in Lengths, in
// ascending order, Repeats requests one at a time, Settle apart, each
// isolated from the server's prefix cache by a salt of its own.
//
// Of the embedded Plan, the breakdown uses URL, API, Model, MaxTokens,
// Extra, Header, Timeout, Client, Epoch (zero: when Breakdown begins) and
// OnResult (given every request as it ends, the preflight ones included);
// the load fields (Requests, Duration, Concurrency, Rate, Warmup, Prompts)
// must be left zero.
type BreakdownPlan struct {
	Plan
	Lengths []int         // prompt lengths in tokens, as the server counts them
	Repeats int           // requests per length
	Settle  time.Duration // the pause before each request; 0: 500 ms, as the specification
}

// Salt names how a breakdown kept its requests out of the prefix cache.
type Salt int

const (
	// SaltField sends a fresh cache_salt request field (vLLM's) with each
	// request; the prompts of one length are then the same text.
	SaltField Salt = iota + 1
	// SaltText begins each prompt with fresh random text, which any
	// server's prefix cache misses (at the cost of a few prompt tokens).
	SaltText
)

// String names the salt as reports do: cache_salt or text.
func (s Salt) String() string {
	switch s {
	case SaltField:
		return "cache_salt"
	case SaltText:
		return "text"
	}
	return fmt.Sprintf("Salt(%d)", int(s))
}

// A LengthOutcome is what became of one prompt length: its requests, in
// the order sent, and the requests not sent, with the reason.
type LengthOutcome struct {
	Tokens  int // the length asked for; each record has the server's count
	Results []*observe.Result
	// Begin and End are the wall-clock times when the length's first
	// request began and its last ended (zero when none was sent): the
	// window for what was sampled beside the requests, such as GPU
	// telemetry.
	Begin, End time.Time
	// Failed describes the first request at this length that did not end
	// ok, which stopped the run; empty when none did.
	Failed string
	// Skipped requests were not sent, for SkipReason.
	Skipped    int
	SkipReason string
}

// A BreakdownOutcome is a finished breakdown run.
type BreakdownOutcome struct {
	Start     time.Time // the wall clock at the run's epoch (Sent 0)
	Salt      Salt
	SaltNote  string // how the salt was chosen
	SizeNote  string // how the prompts were sized
	Preflight []*observe.Result
	Lengths   []LengthOutcome
	// Interrupted is true when the run's context ended it early.
	Interrupted bool
}

// Results returns every request sent, preflight first, each once.
func (o *BreakdownOutcome) Results() []*observe.Result {
	out := slices.Clone(o.Preflight)
	for _, l := range o.Lengths {
		out = append(out, l.Results...)
	}
	return out
}

// CheckBreakdown reports what is wrong with a breakdown plan.
func CheckBreakdown(p BreakdownPlan) error {
	u, err := url.Parse(p.URL)
	switch {
	case err != nil || !u.IsAbs():
		return fmt.Errorf("drive: --url %q is not an absolute URL", p.URL)
	case len(p.Lengths) == 0:
		return errors.New("drive: a breakdown needs prompt lengths")
	case p.Repeats < 1:
		return fmt.Errorf("drive: a breakdown needs at least one request per length, not %d", p.Repeats)
	case p.Settle < 0 || p.MaxTokens < 0 || p.Timeout < 0:
		return errors.New("drive: a negative settling gap, max_tokens or timeout")
	case p.Requests != 0 || p.Duration != 0 || p.Concurrency != 0 || p.Rate != 0 || len(p.Prompts) > 0 ||
		p.Warmup != (Warmup{}):
		return errors.New("drive: a breakdown sends its own requests, one at a time: leave requests, duration, concurrency, rate, warm-up and prompts unset")
	}
	seen := map[int]bool{}
	for _, n := range p.Lengths {
		if n < 1 {
			return fmt.Errorf("drive: prompt length %d: want at least 1 token", n)
		}
		if seen[n] {
			return fmt.Errorf("drive: prompt length %d given twice", n)
		}
		seen[n] = true
	}
	return nil
}

// Breakdown runs a TTFT breakdown. It sizes the prompts with two preflight
// requests (as SyntheticPrompts does), then asks
// whether the server honours a cache_salt field: the same prompt is sent
// twice with two salts, and the field is used only when the server
// accepted it and reported no cached prompt tokens for the second;
// otherwise each prompt begins with random text. Then it sends, for each
// length from the shortest, Repeats cold requests one at a time. The first
// request that does not end ok (an out-of-memory error, say) is recorded,
// and every request after it, at that length and all longer ones, is
// skipped and counted with the reason rather than sent into a failing
// server. When ctx ends, the request in flight is cancelled and recorded,
// and the rest are skipped. Every request sent is in the outcome exactly
// once; the preflight requests are marked preflight. Breakdown returns an
// error only for a plan it cannot run.
func Breakdown(ctx context.Context, p BreakdownPlan) (*BreakdownOutcome, error) {
	if err := CheckBreakdown(p); err != nil {
		return nil, err
	}
	if p.Settle == 0 {
		p.Settle = 500 * time.Millisecond
	}
	lengths := slices.Clone(p.Lengths)
	slices.Sort(lengths)
	b := newBreakdowner(p)
	out := &BreakdownOutcome{Start: b.obs.Epoch}

	sz, pre, err := calibrate(ctx, b.p.Plan, lengths[0], lengths[len(lengths)-1], rand.New(rand.NewPCG(p.textSeed(), sizingStream)))
	if err != nil {
		return nil, err
	}
	out.Preflight = pre
	out.SizeNote = "prompt length not calibrated (" + sz.uncalibrated() + "): a prompt of N tokens is N words"
	if sz.ok {
		out.SizeNote = fmt.Sprintf("prompts sized by two preflight requests as the server counts tokens (%s); each row gives the server's count", sz)
	}
	var saltRes []*observe.Result
	out.Salt, out.SaltNote, saltRes = b.chooseSalt(ctx, sz.words(lengths[0]))
	out.Preflight = append(out.Preflight, saltRes...)

	stopped := ""
	for _, n := range lengths {
		lo := LengthOutcome{Tokens: n}
		prompt := synthetic(0, sz.words(n))
		for k := range p.Repeats {
			if stopped == "" && !sleepUntil(ctx, time.Now().Add(p.Settle)) {
				out.Interrupted, stopped = true, "the run was interrupted"
			}
			if stopped != "" {
				lo.Skipped, lo.SkipReason = p.Repeats-k, stopped
				break
			}
			if lo.Begin.IsZero() {
				lo.Begin = time.Now()
			}
			res := b.send(ctx, out.Salt, prompt, sz.words(n), fmt.Sprintf("len%d-%d", n, k+1), false)
			lo.End = time.Now()
			lo.Results = append(lo.Results, res)
			switch {
			case ctx.Err() != nil:
				out.Interrupted, stopped = true, "the run was interrupted"
			case res.Record.Status != llmmetrics.StatusOK:
				lo.Failed = fmt.Sprintf("request %s: %s: %s", res.Record.ID, res.Record.Status, res.Record.Message)
				stopped = fmt.Sprintf("after the failure at %d tokens", n)
			}
		}
		out.Lengths = append(out.Lengths, lo)
	}
	return out, nil
}

// breakdowner sends a breakdown's requests, one at a time.
type breakdowner struct {
	p    BreakdownPlan
	obs  *observe.Observer
	path string
}

func newBreakdowner(p BreakdownPlan) *breakdowner {
	u, _ := url.Parse(p.URL)
	if p.Epoch.IsZero() {
		p.Epoch = time.Now()
	}
	return &breakdowner{p: p, obs: &observe.Observer{Client: NewClient(p.Plan), Epoch: p.Epoch}, path: u.Path}
}

// send sends one request: under SaltField, the prompt as given with a
// fresh cache_salt; under SaltText, a prompt of words words that begins
// with fresh random text.
func (b *breakdowner) send(ctx context.Context, salt Salt, prompt string, words int, id string, warm bool) *observe.Result {
	p := b.p.Plan
	switch salt {
	case SaltField:
		p.Extra = maps.Clone(p.Extra)
		if p.Extra == nil {
			p.Extra = map[string]json.RawMessage{}
		}
		p.Extra["cache_salt"], _ = json.Marshal(cryptorand.Text())
	case SaltText:
		prompt = synthetic(rand.Uint64(), words)
	}
	maxTokens := p.MaxTokens
	if warm {
		maxTokens = 1
	}
	res := send(ctx, b.obs, p, b.path, prompt, maxTokens, id, warm)
	if p.OnResult != nil {
		p.OnResult(res)
	}
	return res
}

// chooseSalt sends one prompt twice, each with a cache_salt field of its
// own, and keeps the field only when the server accepted it and said it
// took less than half of the second prompt from its cache. A server that
// ignores the field reuses the first request's prompt, and one that does
// not report its cache cannot show that it honours the field: both get the
// text salt, which works everywhere.
func (b *breakdowner) chooseSalt(ctx context.Context, words int) (Salt, string, []*observe.Result) {
	prompt := synthetic(0, words)
	first := b.send(ctx, SaltField, prompt, words, "salt-1", true)
	second := b.send(ctx, SaltField, prompt, words, "salt-2", true)
	pre := []*observe.Result{first, second}
	for _, r := range pre {
		r.Record.Preflight = true
	}
	for _, r := range pre {
		if r.Record.Status != llmmetrics.StatusOK {
			return SaltText, fmt.Sprintf("text salt: a request with a cache_salt field did not succeed (%s: %s)", r.Record.Status, r.Record.Message), pre
		}
	}
	switch {
	case !second.CacheKnown:
		return SaltText, "text salt: the server does not report cached prompt tokens, so whether it honours cache_salt cannot be seen", pre
	case 2*second.CachedTokens >= second.Record.PromptTokens:
		return SaltText, fmt.Sprintf("text salt: the server ignores cache_salt (a repeated prompt under a new salt had %d of its %d prompt tokens from the cache)",
			second.CachedTokens, second.Record.PromptTokens), pre
	}
	return SaltField, fmt.Sprintf("cache_salt field: a repeated prompt under a new salt had %d of its %d prompt tokens from the cache",
		second.CachedTokens, second.Record.PromptTokens), pre
}
