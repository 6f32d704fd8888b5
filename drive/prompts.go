package drive

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"net/url"
	"slices"
	"strings"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/internal/plural"
	"github.com/llmmetrics/llmmetrics/observe"
)

// synthetic returns a prompt of words filler words after a salt of eight
// hex digits, so that no two prompts share a prefix a server could cache.
// The salts are drawn from the plan's textSeed: its Seed and its
// PromptSalt, which differs from run to run.
func synthetic(salt uint64, words int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%08x", uint32(salt))
	for range words {
		b.WriteString(" hello")
	}
	return b.String()
}

// SyntheticPrompts returns n prompts that the server counts as about
// tokens prompt tokens each. Only the server knows how it counts (its
// tokenizer, its chat template), so preflight requests (max_tokens 1) of
// one word and of the salt alone measure its count as a straight line in
// the number of words, and each prompt gets the whole number of words
// whose count comes closest to tokens (the shorter of two as close). The
// sizing requests are never longer than one word, the shortest prompt
// there is. The preflight results are returned, marked preflight, to be
// kept with the run: every request sent is in its output. note says how
// the length was set; without usage in the server's replies the prompts
// are left at tokens words, and note says so.
func SyntheticPrompts(ctx context.Context, p Plan, tokens, n int) (prompts []string, preflight []*observe.Result, note string, err error) {
	if tokens < 1 || n < 1 {
		return nil, nil, "", fmt.Errorf("drive: %d prompts of %d tokens", n, tokens)
	}
	lengths := make([]int, n)
	for i := range lengths {
		lengths[i] = tokens
	}
	return SizedPrompts(ctx, p, lengths)
}

// textSeed is the seed of the synthetic prompts' salts: the plan's Seed
// and its PromptSalt (a PromptSalt of 0 leaves the Seed's).
func (p Plan) textSeed() uint64 { return p.Seed ^ p.PromptSalt }

// SizedPrompts is SyntheticPrompts for prompts of lengths of their own:
// one prompt for each length, in order, sized by one calibration (a length
// spread, as vLLM's random dataset draws).
func SizedPrompts(ctx context.Context, p Plan, lengths []int) (prompts []string, preflight []*observe.Result, note string, err error) {
	if len(lengths) == 0 || slices.Min(lengths) < 1 {
		return nil, nil, "", fmt.Errorf("drive: prompts of lengths %v", lengths)
	}
	lo, hi := slices.Min(lengths), slices.Max(lengths)
	rng := rand.New(rand.NewPCG(p.textSeed(), sizingStream))
	sz, preflight, err := calibrate(ctx, p, lo, hi, rng)
	if err != nil {
		return nil, preflight, "", err
	}
	note = sizingNote(sz, lo, hi)
	for _, n := range lengths {
		prompts = append(prompts, synthetic(rng.Uint64(), sz.words(n)))
	}
	return prompts, preflight, note, nil
}

// sizingNote says how prompts of lo to hi tokens are sized by sz.
func sizingNote(sz sizing, lo, hi int) (note string) {
	asked, words, counts := fmt.Sprint(lo), plural.Of(sz.words(lo), "word"), fmt.Sprint(sz.tokens(sz.words(lo)))
	if hi > lo {
		asked = fmt.Sprintf("%d to %d", lo, hi)
		words = fmt.Sprintf("%d to %d words", sz.words(lo), sz.words(hi))
		counts = fmt.Sprintf("%d to %d", sz.tokens(sz.words(lo)), sz.tokens(sz.words(hi)))
	}
	switch {
	case sz.one:
		note = fmt.Sprintf("prompts of one word: a one-word prompt counts %d tokens as the server counts them, the %s asked", int(sz.fixed+sz.per), asked)
	case sz.ok:
		note = fmt.Sprintf("prompts of %s for the %s prompt tokens asked: %s tokens as the server counts them, the nearest that whole words come (sized by two preflight requests, of one word and of the salt alone: %s); the report gives the counts the server returned",
			words, asked, counts, sz)
	default:
		note = fmt.Sprintf("prompt length not calibrated (%s): %s words each", sz.uncalibrated(), asked)
	}
	return note
}

// sizing is the server's count of a synthetic prompt's tokens as a
// straight line in its words: per tokens a word, fixed for the salt and
// the template. Without ok the server gave no counts.
type sizing struct {
	per, fixed float64
	ok         bool
	one        bool   // every length asked is one word's count: one word, not measured further
	why        string // without ok, why not (uncalibrated when empty: no count)
}

// uncalibrated says why sz did not size the prompts.
func (sz sizing) uncalibrated() string {
	if sz.why != "" {
		return sz.why
	}
	return "the preflight requests got no prompt token count"
}

// words returns the words of a synthetic prompt whose count comes closest
// to tokens: of two whole numbers of words as close, the fewer, so that a
// prompt is not made longer than asked for nothing.
func (s sizing) words(tokens int) int {
	if !s.ok {
		return tokens
	}
	if s.one {
		return 1
	}
	return max(1, int(math.Ceil((float64(tokens)-s.fixed)/s.per-0.5)))
}

// tokens returns the server's count of a synthetic prompt of words words.
func (s sizing) tokens(words int) int {
	return int(math.Round(s.fixed + s.per*float64(words)))
}

func (s sizing) String() string {
	per := fmt.Sprintf("%.3g tokens a word", s.per)
	if s.per == 1 {
		per = "1 token a word"
	}
	return fmt.Sprintf("%s, %.3g for the template and salt", per, s.fixed)
}

// calibrate measures the server's sizing with preflight requests
// (max_tokens 1) of one word and of the salt alone, sent under the plan's
// timeouts, on its epoch, and returned marked preflight. tokens is the
// shortest length asked for, largest the longest. The requests are never
// longer than the shortest prompt there is (one word), and the salt alone
// is sent only when a length beyond one word's count is asked. A preflight
// request that fails stops the run: it is returned with an error that
// gives the server's words.
func calibrate(ctx context.Context, p Plan, tokens, largest int, rng *rand.Rand) (sizing, []*observe.Result, error) {
	obs := &observe.Observer{Client: NewClient(p), Epoch: p.Epoch}
	u, err := url.Parse(p.URL)
	if err != nil {
		return sizing{}, nil, err
	}
	var preflight []*observe.Result
	count := func(words int, id string) (int, error) {
		res, err := sendPreflight(ctx, obs, p, u.Path, synthetic(rng.Uint64(), words), id)
		if err != nil {
			return 0, err
		}
		preflight = append(preflight, res)
		if p.OnResult != nil {
			p.OnResult(res)
		}
		if err := requestFailed(res); err != nil {
			what := "one word"
			if words == 0 {
				what = "the salt alone"
			}
			return 0, fmt.Errorf("drive: the sizing request %s (%s) failed: %w", id, what, err)
		}
		return res.Record.PromptTokens, nil
	}
	p1, err := count(1, "preflight-1")
	if err != nil {
		return sizing{}, preflight, err
	}
	if p1 <= 0 {
		return sizing{}, preflight, nil // no count: not calibrated
	}
	if tokens < p1 {
		return sizing{}, preflight, &TooShortError{Tokens: tokens, Smallest: p1}
	}
	if largest == p1 {
		return sizing{per: 1, fixed: float64(p1 - 1), ok: true, one: true}, preflight, nil
	}
	p0, err := count(0, "preflight-2")
	if err != nil {
		return sizing{}, preflight, err
	}
	switch {
	case p0 <= 0:
		return sizing{why: "the salt alone got no prompt token count"}, preflight, nil
	case p0 >= p1:
		return sizing{why: fmt.Sprintf("a word added nothing to the count: one word counted %d tokens, the salt alone %d", p1, p0)}, preflight, nil
	}
	return sizing{per: float64(p1 - p0), fixed: float64(p0), ok: true}, preflight, nil
}

// sendPreflight sends a request before the load (max_tokens 1), to check
// the endpoint or size the prompts, and returns it marked preflight; or,
// when ctx ended before any of it was written, a *NotSentError and no
// request: the server never saw it, so there is nothing to record.
func sendPreflight(ctx context.Context, obs *observe.Observer, p Plan, path, prompt, id string) (*observe.Result, error) {
	res := send(ctx, obs, p, path, prompt, 1, id, true)
	if res.Unwritten && ctx.Err() != nil {
		return nil, &NotSentError{ID: id, Cause: context.Cause(ctx)}
	}
	res.Record.Preflight = true
	return res, nil
}

// A NotSentError is a preflight request (the test request, a sizing
// request) that the run's context ended before any of it was written,
// in its dial or TLS handshake, say. The server never saw it: it is no
// request, neither kept nor given to Plan.OnResult, and no cancelled
// request is counted for it.
type NotSentError struct {
	ID    string
	Cause error // the context's cause
}

func (e *NotSentError) Error() string {
	return fmt.Sprintf("drive: %s was never sent: the run ended before it reached the server (%v)", e.ID, e.Cause)
}

func (e *NotSentError) Unwrap() error { return e.Cause }

// A TooShortError refuses prompts shorter than the smallest the server's
// chat template allows: a one-word prompt, with its salt, already counts
// Smallest tokens.
type TooShortError struct{ Tokens, Smallest int }

func (e *TooShortError) Error() string {
	return fmt.Sprintf("drive: prompts of %d tokens are shorter than the smallest this server allows: a one-word prompt counts %d tokens (the word, the chat template and the 8-character salt)", e.Tokens, e.Smallest)
}

// A RequestError is a request that failed where the run cannot go on
// without it (the test request, a sizing request): its status and the
// server's words.
type RequestError struct {
	ID         string
	Status     llmmetrics.Status
	HTTPStatus int // 0 when no response came
	Message    string
}

func (e *RequestError) Error() string {
	return fmt.Sprintf("%s: %s", e.Status, e.Message)
}

// requestFailed returns a *RequestError for a request that did not end ok.
func requestFailed(res *observe.Result) error {
	if res.Record.Status == llmmetrics.StatusOK {
		return nil
	}
	return &RequestError{ID: res.Record.ID, Status: res.Record.Status, HTTPStatus: res.HTTPStatus, Message: res.Record.Message}
}

// TestRequest sends one request, the plan's first prompt with max_tokens 1,
// before a run, as vLLM's benchmark does, so that a wrong URL, model or
// key stops the run at once with the server's words. The request is
// returned marked preflight, named "test-1", to be kept with the run; err is
// a *RequestError when it did not end ok, and a *NotSentError, with no
// request, when ctx ended before it was written.
func TestRequest(ctx context.Context, p Plan) (*observe.Result, error) {
	if len(p.Prompts) == 0 {
		return nil, errors.New("drive: no prompts")
	}
	u, err := url.Parse(p.URL)
	if err != nil {
		return nil, err
	}
	obs := &observe.Observer{Client: NewClient(p), Epoch: p.Epoch}
	res, err := sendPreflight(ctx, obs, p, u.Path, p.Prompts[0], "test-1")
	if err != nil {
		return nil, err
	}
	if p.OnResult != nil {
		p.OnResult(res)
	}
	if err := requestFailed(res); err != nil {
		return res, fmt.Errorf("drive: the test request failed: %w", err)
	}
	return res, nil
}
