package llmmetrics

// Answers whose figures are unknown in part: the ok requests without a
// usable token count (see CountState), and the unstreamed answers.

// unstreamed reports whether an ok record's text came at once: a reply
// its client saw come as one body (ClientSide.OneBody: one JSON body, a
// server that ignored "stream"), whatever its count, or, in one
// text-bearing chunk (with no chunk arrivals, first and last text at
// once), two or more tokens by a server count, or a count no server gave
// that max_tokens does not hold to one. Its E2E is a sample; its TTFT is
// not a time to first token, its TPOT not a time per token (it would read
// 0): both leave it out, counted in Accounting.Unstreamed.
func (r *Record) unstreamed() bool {
	switch {
	case r.Client != nil && r.Client.OneBody:
		return true
	case r.counted() && r.CompletionTokens < 2, !r.counted() && r.MaxTokens == 1:
		return false // one token at most: a stream of one chunk
	case len(r.Chunks) > 0:
		return len(r.Chunks) == 1
	}
	return r.FirstText == r.LastText
}

// okFacts are what the workload's pass over the records notes of the ok
// ones for the summary: the ok records seen; of those without a usable
// count, the ones that say their max_tokens, the ones with chunk arrivals,
// whose gaps' basis is unknown, and the unstreamed ones of one chunk
// (not a body) that may have held one token.
type okFacts struct{ ok, noCountMax, noCountChunks, oneChunk int }

// see notes an ok record.
func (f *okFacts) see(r *Record) {
	if !r.counted() {
		if r.MaxTokens > 0 {
			f.noCountMax++
		}
		switch {
		case !r.unstreamed():
			f.noCountChunks += min(len(r.Chunks), 1) // with chunks: unknown basis
		case r.Client == nil || !r.Client.OneBody:
			f.oneChunk++
		}
	}
	f.ok++
}
