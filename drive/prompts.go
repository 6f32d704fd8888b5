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
	"github.com/llmmetrics/llmmetrics/observe"
)

// synthetic returns a prompt of words filler words after a salt of eight
// hex digits, so that no two prompts share a prefix a server could cache.
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
// tokenizer, its chat template), so preflight requests of one word and of
// two (max_tokens 1) measure its count as a straight line in the number
// of words, and the prompts are sized by it. The preflight results are
// returned, marked warm-up, to be kept with the run: every request sent is
// in its output. note says how the length was set; without usage in the
// server's replies the prompts are left at tokens words, and note says so.
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

// SizedPrompts is SyntheticPrompts for prompts of lengths of their own:
// one prompt for each length, in order, sized by one calibration (a length
// spread, as vLLM's random dataset draws).
func SizedPrompts(ctx context.Context, p Plan, lengths []int) (prompts []string, preflight []*observe.Result, note string, err error) {
	if len(lengths) == 0 || slices.Min(lengths) < 1 {
		return nil, nil, "", fmt.Errorf("drive: prompts of lengths %v", lengths)
	}
	lo, hi := slices.Min(lengths), slices.Max(lengths)
	rng := rand.New(rand.NewPCG(p.Seed, 7))
	sz, preflight, err := calibrate(ctx, p, lo, hi, rng)
	if err != nil {
		return nil, preflight, "", err
	}
	asked, words := fmt.Sprint(lo), fmt.Sprint(sz.words(lo))
	if hi > lo {
		asked, words = fmt.Sprintf("%d to %d", lo, hi), fmt.Sprintf("%d to %d", sz.words(lo), sz.words(hi))
	}
	switch {
	case sz.one:
		note = fmt.Sprintf("prompts of one word: a one-word prompt counts %d tokens as the server counts them, within 8 of the %s asked", int(sz.fixed)+1, asked)
	case sz.ok:
		note = fmt.Sprintf("prompts of %s words, sized by two preflight requests (one word, two words) for %s prompt tokens as the server counts them (%s); the report gives the counts the server returned",
			words, asked, sz)
	default:
		note = fmt.Sprintf("prompt length not calibrated (the preflight requests got no prompt token count): %s words each", asked)
	}
	for _, n := range lengths {
		prompts = append(prompts, synthetic(rng.Uint64(), sz.words(n)))
	}
	return prompts, preflight, note, nil
}

// sizing is the server's count of a synthetic prompt's tokens as a
// straight line in its words: per tokens a word, fixed for the salt and
// the template. Without ok the server gave no counts.
type sizing struct {
	per, fixed float64
	ok         bool
	one        bool // the target is within 8 tokens of one word: one word, not measured further
}

// words returns the words of a synthetic prompt of about tokens tokens.
func (s sizing) words(tokens int) int {
	if !s.ok {
		return tokens
	}
	if s.one {
		return 1
	}
	return max(1, int(math.Round((float64(tokens)-s.fixed)/s.per)))
}

func (s sizing) String() string {
	return fmt.Sprintf("%.3g tokens a word, %.3g for the template and salt", s.per, s.fixed)
}

// calibrate measures the server's sizing with preflight requests
// (max_tokens 1) of one word and of two, sent under the plan's timeouts,
// on its epoch, and returned marked warm-up. tokens is the shortest length
// asked for, largest the longest. A preflight request
// that fails stops the run: it is returned with an error that gives the
// server's words.
func calibrate(ctx context.Context, p Plan, tokens, largest int, rng *rand.Rand) (sizing, []*observe.Result, error) {
	obs := &observe.Observer{Client: newClient(p), Epoch: p.Epoch}
	u, err := url.Parse(p.URL)
	if err != nil {
		return sizing{}, nil, err
	}
	var preflight []*observe.Result
	count := func(words int, id string) (int, error) {
		res := send(ctx, obs, p, u.Path, synthetic(rng.Uint64(), words), 1, id, true)
		preflight = append(preflight, res)
		if p.OnResult != nil {
			p.OnResult(res)
		}
		if err := requestFailed(res); err != nil {
			return 0, fmt.Errorf("drive: the sizing request %s (%d words) failed: %w", id, words, err)
		}
		return res.Record.PromptTokens, nil
	}
	// One word, then two: the sizing requests are never longer than the
	// prompts they size (a second word is sent only when the target is at
	// least 8 tokens beyond one word's count).
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
	if largest-p1 < 8 {
		return sizing{per: 1, fixed: float64(p1 - 1), ok: true, one: true}, preflight, nil
	}
	p2, err := count(2, "preflight-2")
	if err != nil {
		return sizing{}, preflight, err
	}
	if p2 <= p1 {
		return sizing{}, preflight, nil
	}
	per := float64(p2 - p1)
	return sizing{per: per, fixed: float64(p1) - per, ok: true}, preflight, nil
}

// A TooShortError refuses prompts shorter than the smallest the server's
// chat template allows: a one-word prompt, with its salt, already counts
// Smallest tokens.
type TooShortError struct{ Tokens, Smallest int }

func (e *TooShortError) Error() string {
	return fmt.Sprintf("drive: prompts of %d tokens are shorter than the smallest this server allows: a one-word prompt counts %d tokens (the chat template and the 8-character salt)", e.Tokens, e.Smallest)
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
// returned marked warm-up, named "test-1", to be kept with the run; err is
// a *RequestError when it did not end ok.
func TestRequest(ctx context.Context, p Plan) (*observe.Result, error) {
	if len(p.Prompts) == 0 {
		return nil, errors.New("drive: no prompts")
	}
	u, err := url.Parse(p.URL)
	if err != nil {
		return nil, err
	}
	obs := &observe.Observer{Client: newClient(p), Epoch: p.Epoch}
	res := send(ctx, obs, p, u.Path, p.Prompts[0], 1, "test-1", true)
	if p.OnResult != nil {
		p.OnResult(res)
	}
	if err := requestFailed(res); err != nil {
		return res, fmt.Errorf("drive: the test request failed: %w", err)
	}
	return res, nil
}
