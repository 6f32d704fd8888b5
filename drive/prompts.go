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
	p.MaxTokens = 1
	obs := &observe.Observer{Client: p.Client}
	u, err := url.Parse(p.URL)
	if err != nil {
		return nil, nil, "", err
	}
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
	words := tokens
	switch {
	case !ok1 || !ok2 || p2 <= p1:
		note = fmt.Sprintf("prompt length not calibrated (the preflight requests got no prompt token count): %d words each", tokens)
	default:
		per := float64(p2-p1) / float64(w2-w1) // tokens per word
		fixed := float64(p1) - per*float64(w1) // the salt and the template
		words = max(1, int(math.Round((float64(tokens)-fixed)/per)))
		note = fmt.Sprintf("prompts of %d words, sized by two preflight requests for %d prompt tokens as the server counts them (%.3g tokens a word, %.3g for the template and salt); the report gives the counts the server returned",
			words, tokens, per, fixed)
	}
	for range n {
		prompts = append(prompts, synthetic(rng.Uint64(), words))
	}
	return prompts, preflight, note, nil
}
