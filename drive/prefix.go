package drive

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
)

// Shared prefixes. A request with prefix blocks (Request.PrefixBlocks: a
// Mooncake trace's hash_ids, or the group drawn for it under
// Plan.PrefixGroups) gets a prompt made of its blocks' texts, in order,
// then a tail of its own when its blocks do not cover its length:
//
//	block 1   salt(id) + " hello"×w
//	block i   " " + salt(id) + " hello"×w   (i ≥ 2)
//	tail      " " + salt(request) + " hello"×w
//
// A block's salt is eight hex digits that only its id (and the plan's
// Seed and PromptSalt) decide, so two requests' prompts are
// byte-identical through the blocks they share, from the start, and part
// at the first block they do not: a server's prefix cache sees exactly
// the sharing the plan describes, and nothing of another run's blocks
// (another PromptSalt).
//
// Block i ends at token i·Plan.PrefixBlockTokens of the prompt as the
// server counts it from its very start, the chat template's opening (its
// BOS, system prompt, user header: the same in every request) included,
// as a prefix cache counts the tokens it reuses and as Mooncake's
// hash_ids number blocks of the tokenized prompt: two requests that share
// their first block share their first PrefixBlockTokens tokens (the
// nearest whole words, against the running total). The template's
// closing (end of turn, assistant header) comes after the message: the
// prompt's length counts it, no block holds it, so the last block holds
// what is left of the prompt's length but the closing: Mooncake's
// input_length − 512·(k−1) − closing. Where the sizing could not tell
// the template's opening from its closing (SizePrompts), the whole
// template is taken as the opening. A prompt shorter than its blocks
// uses the first ceil(tokens/size) of them; a partial block is a prefix
// of the same block whole.

// blockSalt returns the salt that begins block id's text: the id's low 32
// bits, mixed with the seed by a bijection (murmur3's finalizer), so that
// two blocks of ids from 0 to 2³²−1 never have the same salt and two
// neighbouring ids rarely share its first digit (a shared digit is a
// token or so the cache would take beyond the shared blocks).
func blockSalt(seed uint64, id int) uint64 {
	x := uint32(id) ^ uint32(seed) ^ uint32(seed>>32) ^ 0x9e3779b9 // not 00000000 for block 0 under the seed 0
	x ^= x >> 16
	x *= 0x85ebca6b
	x ^= x >> 13
	x *= 0xc2b2ae35
	x ^= x >> 16
	return uint64(x)
}

// blockWords returns the words of the block that ends the prompt's first
// target tokens, after blocks the server counts as done tokens: the whole
// words that bring the count nearest target (of two as near, the fewer).
// The first block's count takes the chat template's opening and its salt
// (the sizing's fixed part but the closing), a later block's its space
// and salt (saltTokens).
// Sizing each block against the running total, not alone, keeps a
// prompt's count within half a word of its length however many blocks
// it has; a block's words still depend only on its place and its length,
// so a block of one id at one place is one text.
func (s *Sizing) blockWords(target int, done float64, first bool) (words int, count float64) {
	fixed, per := s.saltTokens, s.s.per
	if first {
		fixed = s.s.fixed - s.closing
	}
	if !s.s.ok {
		fixed, per = 0, 1
	}
	words = max(0, int(math.Ceil((float64(target)-done-fixed)/per-0.5)))
	return words, done + fixed + per*float64(words)
}

// prefixed returns request n's prompt of tokens tokens that begins with
// blocks of size tokens each (see above).
func (s *Sizing) prefixed(n, tokens int, blocks []int, size int) string {
	k := min(len(blocks), (tokens+size-1)/size)
	end := tokens - int(math.Round(s.closing)) // the message's end, from the prompt's start
	var b strings.Builder
	target, done := 0, 0.0
	for i := range k {
		target = min(target+size, end)
		var w int
		w, done = s.blockWords(target, done, i == 0)
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(synthetic(blockSalt(s.seed, blocks[i]), w))
	}
	if target < end {
		w, _ := s.blockWords(end, done, k == 0)
		if k > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(synthetic(rand.NewPCG(s.seed, uint64(n)).Uint64(), w))
	}
	return b.String()
}

// group returns the prefix group request n draws (from 0) among g, from
// the seed: the same for the same seed and n.
func group(seed uint64, n, g int) int {
	return int(rand.NewPCG(seed^0x9e3779b97f4a7c15, uint64(n)).Uint64() % uint64(g))
}

// blocks returns request n's prefix blocks (n from 1, in send order, the
// warm-up first): its Replay row's, or the group it draws.
func (p Plan) blocks(n int) []int {
	if len(p.Replay) > 0 {
		return p.Replay[(n-1)%len(p.Replay)].PrefixBlocks
	}
	if p.PrefixGroups > 0 {
		return []int{group(p.Seed, n, p.PrefixGroups)}
	}
	return nil
}

// Prompt returns the prompt request n (from 1, in send order, the
// warm-up first) is sent with, as Run makes it: from the plan's Sizing,
// with its shared prefix blocks, or its Prompts in turn; "" when the plan
// has neither. A zero Sizing makes prompts of a word a token, without a
// server.
func (p Plan) Prompt(n int) string {
	if n < 1 || p.Sizing == nil && len(p.Prompts) == 0 {
		return ""
	}
	prompt, _ := p.request(n)
	return prompt
}

// PrefixShare returns, for each request of reqs in order, its prompt
// tokens that a prefix cache holding every block sent before could reuse,
// blocks of size tokens as the prompts are made: the leading run of its
// blocks sent before, whole, and of the first one sent before only
// shorter, the part sent.
func PrefixShare(reqs []Request, size int) (shared []int) {
	shared = make([]int, len(reqs))
	if size <= 0 {
		return shared
	}
	sent := map[int]int{} // a block's most tokens sent so far
	for i, r := range reqs {
		k := min(len(r.PrefixBlocks), (r.PromptTokens+size-1)/size)
		left, run := r.PromptTokens, true
		for _, id := range r.PrefixBlocks[:k] {
			t := min(size, left)
			left -= t
			if before := sent[id]; run {
				shared[i] += min(t, before)
				run = before >= t
			}
			sent[id] = max(sent[id], t)
		}
	}
	return shared
}

// checkPrefix reports what makes a plan's shared prefixes impossible to
// make.
func checkPrefix(p Plan) error {
	switch {
	case p.PrefixBlockTokens < 0 || p.PrefixGroups < 0:
		return fmt.Errorf("drive: %d prefix groups of %d tokens", p.PrefixGroups, p.PrefixBlockTokens)
	case p.PrefixGroups > 0 && len(p.Replay) > 0:
		return errors.New("drive: a replay's prefixes are its trace's: leave out the prefix groups")
	case p.PrefixGroups > 0 && p.PrefixBlockTokens == 0:
		return errors.New("drive: prefix groups need their length in tokens (PrefixBlockTokens)")
	}
	for _, l := range p.PromptTokensEach {
		if p.PrefixGroups > 0 && l <= p.PrefixBlockTokens {
			return fmt.Errorf("drive: a prompt of %d tokens cannot hold a shared prefix of %d and a part of its own: make the prompts longer than the prefix", l, p.PrefixBlockTokens)
		}
	}
	return nil
}
