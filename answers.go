package llmmetrics

// Answers whose figures are unknown in part: the ok requests without a
// usable token count (see CountState), and the answers whose text came at
// once, which were not streamed.

// unstreamed reports whether an ok record's text came at once: a reply
// its client saw come as one body (ClientSide.OneBody: one JSON body, a
// server that ignored "stream"), whatever its count, or two or more
// tokens by a server count in one text-bearing chunk, or, with no chunk
// arrivals, first and last text at once. Its E2E is a sample; its TTFT is
// not a time to first token, its TPOT not a time per token (it would read
// 0): both leave it out, counted in Accounting.Unstreamed.
func (r *Record) unstreamed() bool {
	if r.Client != nil && r.Client.OneBody {
		return true
	}
	if r.CompletionTokens < 2 || !r.counted() {
		return false
	}
	if len(r.Chunks) > 0 {
		return len(r.Chunks) == 1
	}
	return r.FirstText == r.LastText
}

// okFacts are what the workload's pass over the records notes of the ok
// ones for the summary: the ok records seen; of those without a usable
// count, the ones that say their max_tokens and the ones with chunk
// arrivals, whose gaps' basis is unknown.
type okFacts struct{ ok, noCountMax, noCountChunks int }

// see notes an ok record.
func (f *okFacts) see(r *Record) {
	if !r.counted() {
		if r.MaxTokens > 0 {
			f.noCountMax++
		}
		if len(r.Chunks) > 0 {
			f.noCountChunks++
		}
	}
	f.ok++
}
