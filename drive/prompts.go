package drive

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"net/url"
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
// tokenizer, its chat template), so two preflight requests of different
// lengths (max_tokens 1) measure its count as a straight line in the number
// of words, and the prompts are sized by it. The preflight results are
// returned, marked warm-up, to be kept with the run: every request sent is
// in its output. note says how the length was set; without usage in the
// server's replies the prompts are left at tokens words, and note says so.
func SyntheticPrompts(ctx context.Context, p Plan, tokens, n int) (prompts []string, preflight []*observe.Result, note string, err error) {
	if tokens < 1 || n < 1 {
		return nil, nil, "", fmt.Errorf("drive: %d prompts of %d tokens", n, tokens)
	}
	rng := rand.New(rand.NewPCG(p.Seed, 7))
	sz, preflight, err := calibrate(ctx, p, tokens, rng)
	if err != nil {
		return nil, nil, "", err
	}
	words := sz.words(tokens)
	if sz.ok {
		note = fmt.Sprintf("prompts of %d words, sized by two preflight requests for %d prompt tokens as the server counts them (%s); the report gives the counts the server returned",
			words, tokens, sz)
	} else {
		note = fmt.Sprintf("prompt length not calibrated (the preflight requests got no prompt token count): %d words each", tokens)
	}
	for range n {
		prompts = append(prompts, synthetic(rng.Uint64(), words))
	}
	return prompts, preflight, note, nil
}

// sizing is the server's count of a synthetic prompt's tokens as a
// straight line in its words: per tokens a word, fixed for the salt and
// the template. Without ok the server gave no counts.
type sizing struct {
	per, fixed float64
	ok         bool
}

// words returns the words of a synthetic prompt of about tokens tokens.
func (s sizing) words(tokens int) int {
	if !s.ok {
		return tokens
	}
	return max(1, int(math.Round((float64(tokens)-s.fixed)/s.per)))
}

func (s sizing) String() string {
	return fmt.Sprintf("%.3g tokens a word, %.3g for the template and salt", s.per, s.fixed)
}

// calibrate measures the server's sizing with two preflight requests
// (max_tokens 1) of tokens and 2×tokens words, returned marked warm-up.
func calibrate(ctx context.Context, p Plan, tokens int, rng *rand.Rand) (sizing, []*observe.Result, error) {
	p.MaxTokens = 1
	obs := &observe.Observer{Client: p.Client}
	u, err := url.Parse(p.URL)
	if err != nil {
		return sizing{}, nil, err
	}
	var preflight []*observe.Result
	count := func(words int, id string) (int, bool) {
		req, err := newRequest(ctx, p, u.Path, synthetic(rng.Uint64(), words), 1)
		if err != nil {
			return 0, false
		}
		res, err := obs.Do(req, p.API, id)
		if err != nil {
			return 0, false
		}
		res.Record.Warmup, res.Record.MaxTokens = true, 1
		preflight = append(preflight, res)
		return res.Record.PromptTokens, res.Record.Status == llmmetrics.StatusOK && res.Record.PromptTokens > 0
	}
	w1, w2 := tokens, 2*tokens
	p1, ok1 := count(w1, "preflight-1")
	p2, ok2 := count(w2, "preflight-2")
	if !ok1 || !ok2 || p2 <= p1 {
		return sizing{}, preflight, nil
	}
	per := float64(p2-p1) / float64(w2-w1)
	return sizing{per: per, fixed: float64(p1) - per*float64(w1), ok: true}, preflight, nil
}
