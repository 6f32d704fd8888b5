package drive

import (
	"errors"
	"fmt"
	"slices"
)

// checkReplay reports what makes a plan's Replay impossible to send.
func checkReplay(p Plan) error {
	if len(p.Replay) == 0 {
		return nil
	}
	switch {
	case p.Requests != len(p.Replay) || p.Duration > 0:
		return fmt.Errorf("drive: a replay of %d requests sends %d, not %d, and has no duration", len(p.Replay), len(p.Replay), p.Requests)
	case p.Rate <= 0:
		return errors.New("drive: a replay is an open loop: give its mean rate as Rate")
	case p.Arrivals.Process != "":
		return errors.New("drive: a replay's arrivals are its own: leave Arrivals out")
	case p.Warmup != (Warmup{}):
		return errors.New("drive: a replay has no warm-up: it is sent as it is")
	}
	for i, r := range p.Replay {
		switch {
		case r.Scheduled < 0 || i > 0 && r.Scheduled < p.Replay[i-1].Scheduled:
			return fmt.Errorf("drive: replay request %d (%s) is due at %v, before the one before it or the start", i+1, r.Source, r.Scheduled)
		case r.MaxTokens < 0 || r.PromptTokens < 0 || p.Sizing != nil && r.PromptTokens == 0:
			return fmt.Errorf("drive: replay request %d (%s) asks %d prompt and %d output tokens", i+1, r.Source, r.PromptTokens, r.MaxTokens)
		}
	}
	return checkUnstreamed(p)
}

// checkUnstreamed refuses a replay whose unstreamed requests cannot be
// sent: TGI's go to /generate, in place of its URL's /generate_stream.
func checkUnstreamed(p Plan) error {
	i := slices.IndexFunc(p.Replay, func(r Request) bool { return r.Unstreamed })
	if i < 0 {
		return nil
	}
	q := p
	q.unstreamed = true
	if _, err := requestURL(q); err != nil {
		return fmt.Errorf("%w (replay request %d, %s, was not streamed)", err, i+1, p.Replay[i].Source)
	}
	return nil
}

// unstreamedAt says whether request n (from 1, in send order) is sent
// without streaming: its Replay row's Unstreamed.
func (p Plan) unstreamedAt(n int) bool {
	return len(p.Replay) > 0 && p.Replay[(n-1)%len(p.Replay)].Unstreamed
}

// lengths returns the prompt length targeted (0: a given prompt) and the
// max_tokens of request n (from 1, in send order, the warm-up first).
func (p Plan) lengths(n int) (promptTokens, maxTokens int) {
	if len(p.Replay) > 0 {
		r := p.Replay[(n-1)%len(p.Replay)]
		return r.PromptTokens, r.MaxTokens
	}
	maxTokens = p.MaxTokens
	if each := p.MaxTokensEach; len(each) > 0 {
		maxTokens = each[(n-1)%len(each)]
	}
	if each := p.PromptTokensEach; len(each) > 0 {
		promptTokens = each[(n-1)%len(each)]
	}
	return promptTokens, maxTokens
}

// request returns the prompt and the max_tokens of request n: made by the
// plan's Sizing, with its shared prefix blocks (prefix.go), or its Prompts
// in turn.
func (p Plan) request(n int) (prompt string, maxTokens int) {
	tokens, maxTokens := p.lengths(n)
	if p.Sizing != nil {
		if blocks := p.blocks(n); len(blocks) > 0 && p.PrefixBlockTokens > 0 {
			return p.Sizing.prefixed(n, tokens, blocks, p.PrefixBlockTokens), maxTokens
		}
		return p.Sizing.Prompt(n, tokens), maxTokens
	}
	return p.Prompts[(n-1)%len(p.Prompts)], maxTokens
}
