package drive

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/llmmetrics/llmmetrics/observe"
)

// A Sizing makes synthetic prompts of any length from lo to hi tokens as
// one server counts them, measured once by the preflight requests of
// SizePrompts: the prompts of a long plan (a replayed trace) are made as
// they are sent, not held in memory.
type Sizing struct {
	s    sizing
	seed uint64
}

// SizePrompts measures how the server counts synthetic prompts, with the
// preflight requests of SizedPrompts, for prompts of lo to hi tokens. The
// preflight results are returned, marked preflight, to be kept with the
// run; note says how the length is set. A length below the smallest
// prompt the server allows (Smallest) is made of one word; only hi below
// it is an error (a *TooShortError).
func SizePrompts(ctx context.Context, p Plan, lo, hi int) (*Sizing, []*observe.Result, string, error) {
	if lo < 1 || hi < lo {
		return nil, nil, "", fmt.Errorf("drive: prompts of %d to %d tokens", lo, hi)
	}
	sz, preflight, err := calibrate(ctx, p, hi, hi, rand.New(rand.NewPCG(p.Seed, 7)))
	if err != nil {
		return nil, preflight, "", err
	}
	return &Sizing{s: sz, seed: p.Seed}, preflight, sizingNote(sz, lo, hi), nil
}

// Prompt returns request n's prompt of about tokens tokens: the whole
// number of words that comes nearest, after a salt drawn from the seed
// and n, so that no two requests share a prefix a server could cache. It
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
// word after the salt; 1 when the server gave no counts.
func (s *Sizing) Smallest() int {
	if !s.s.ok {
		return 1
	}
	return s.s.tokens(1)
}
