package drive

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"net/url"

	"github.com/llmmetrics/llmmetrics/observe"
)

// sizingStream is the stream of the generator that salts the sizing
// requests' prompts (and SizedPrompts' own): apart from every request's
// stream, its number n (Sizing.prompt's rand.NewPCG(seed, n)), so that no
// request's prompt begins with a sizing request's salt, which a prefix
// cache would hold.
const sizingStream = 1<<63 | 7

// A Sizing makes synthetic prompts of any length from lo to hi tokens as
// one server counts them, measured once by the preflight requests of
// SizePrompts: the prompts of a long plan (a replayed trace) are made as
// they are sent, not held in memory.
type Sizing struct {
	s    sizing
	seed uint64 // the plan's textSeed: its Seed and PromptSalt
	// saltTokens is the server's count of a block's salt after the
	// first, with its space (prefix.go); 0 where not measured.
	saltTokens float64
	// closing is the server's count of the chat template's part after
	// the message (its end of turn, the assistant's header): the
	// prompt's length counts it, no block holds it (prefix.go); 0 where
	// not measured, as though the whole template came first.
	closing   float64
	forBlocks bool // sized for shared prefixes: a block may hold its salt alone
}

// SizePrompts measures how the server counts synthetic prompts, with the
// preflight requests of SizedPrompts, for prompts of lo to hi tokens; a
// plan of shared prefixes (PrefixBlockTokens) sends a third, of two
// salts, which measures a block's salt after the first, and, by the
// tokens the server reports it took from its prefix cache (the third
// begins as the second, with the second's salt), where the chat template
// parts around the message. The
// preflight results are returned, marked preflight, to be kept with the
// run; note says how the length is set. A length below the smallest
// prompt the server allows (Smallest) is made of one word; only hi below
// it is an error (a *TooShortError).
func SizePrompts(ctx context.Context, p Plan, lo, hi int) (*Sizing, []*observe.Result, string, error) {
	if lo < 1 || hi < lo {
		return nil, nil, "", fmt.Errorf("drive: prompts of %d to %d tokens", lo, hi)
	}
	prefixed := p.PrefixBlockTokens > 0
	largest := hi
	if prefixed {
		largest = math.MaxInt // a prompt of blocks is never one word: always measured
	}
	rng := rand.New(rand.NewPCG(p.textSeed(), sizingStream))
	alone := rand.New(rand.NewPCG(p.textSeed(), sizingStream))
	alone.Uint64() // calibrate draws preflight-1's salt, then preflight-2's (the salt alone)
	sz, preflight, err := calibrate(ctx, p, hi, largest, rng)
	if err != nil {
		return nil, preflight, "", err
	}
	s := &Sizing{s: sz, seed: p.textSeed(), forBlocks: prefixed}
	note := sizingNote(sz, lo, hi)
	if !prefixed || !sz.ok {
		return s, preflight, note, nil
	}
	res, err := sizeSalt(ctx, p, alone.Uint64(), rng)
	if res != nil {
		preflight = append(preflight, res)
	}
	if err != nil {
		return nil, preflight, "", err
	}
	return s, preflight, note + s.sizeBlocks(res), nil
}

// sizeBlocks sets the blocks' sizing from the third sizing request, res,
// of two salts, the first preflight-2's, and returns what the note adds:
// its count beyond the salt alone is a later block's salt; the tokens
// the server took from its cache, the template's opening and the first
// salt, which it shares with preflight-2 (no more: the second parts at
// the template's closing), so that the rest of preflight-2's count is
// the template's closing.
func (s *Sizing) sizeBlocks(res *observe.Result) string {
	rec := &res.Record
	p0, note := s.s.fixed, ""
	if rec.PromptTokens > int(p0) {
		s.saltTokens = float64(rec.PromptTokens) - p0
		note = fmt.Sprintf("; the shared prefixes' blocks are sized by a third, of two salts (a block's salt after the first counts %.3g tokens)", s.saltTokens)
	} else {
		note = "; the third sizing request, of two salts, got no greater count than one salt: blocks are sized without their salts' tokens"
	}
	if c := res.CachedTokens; res.CacheKnown && c > 0 && float64(c) < p0 {
		s.closing = p0 - float64(c)
		return note + fmt.Sprintf("; the chat template's opening and the first salt count %d tokens (the server's cached tokens of the third, which begins as the second), its closing after the message %.3g: a shared block of n tokens is the prompt's first n tokens, the template's opening included", c, s.closing)
	}
	return note + "; the server reported no cached tokens of the third sizing request, so where its chat template parts around the message is not known: blocks are sized as though the whole template came before the message, and may come short by the template's closing"
}

// sizeSalt sends the preflight request of two salts and no word, the
// first first (preflight-2's), which measures a block's salt after the
// first and the template's opening (prefix.go), named "preflight-3".
func sizeSalt(ctx context.Context, p Plan, first uint64, rng *rand.Rand) (*observe.Result, error) {
	u, err := url.Parse(p.URL)
	if err != nil {
		return nil, err
	}
	obs := &observe.Observer{Client: NewClient(p), Epoch: p.Epoch}
	res, err := sendPreflight(ctx, obs, p, u.Path, synthetic(first, 0)+" "+synthetic(rng.Uint64(), 0), "preflight-3")
	if err != nil {
		return nil, err
	}
	if p.OnResult != nil {
		p.OnResult(res)
	}
	if err := requestFailed(res); err != nil {
		return res, fmt.Errorf("drive: the sizing request preflight-3 (two salts) failed: %w", err)
	}
	return res, nil
}

// Prompt returns request n's prompt of about tokens tokens: the whole
// number of words that comes nearest, after a salt drawn from the plan's
// Seed and PromptSalt and n, so that no two requests share a prefix a
// server could cache, nor two runs of different PromptSalts. It
// is safe for concurrent use.
func (s *Sizing) Prompt(n, tokens int) string {
	return synthetic(rand.NewPCG(s.seed, uint64(n)).Uint64(), s.s.words(tokens))
}

// Tokens returns the server's count of the prompt Prompt makes for
// tokens: the nearest whole words come; tokens itself when the server
// gave no counts.
func (s *Sizing) Tokens(tokens int) int {
	if !s.s.ok {
		return tokens
	}
	return s.s.tokens(s.s.words(tokens))
}

// Smallest is the server's count of the shortest prompt there is, one
// word after the salt (the salt alone for shared prefixes, whose first
// block may hold no word); 1 when the server gave no counts.
func (s *Sizing) Smallest() int {
	if !s.s.ok {
		return 1
	}
	if s.forBlocks {
		return s.s.tokens(0)
	}
	return s.s.tokens(1)
}

// TokensPerWord is the server's count of one word of a synthetic prompt:
// the resolution a prompt's length can be made to; 1 when the server
// gave no counts.
func (s *Sizing) TokensPerWord() float64 {
	if !s.s.ok {
		return 1
	}
	return s.s.per
}
