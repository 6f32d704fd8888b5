package llmmetrics

// Answers whose figures are unknown in part: the ok requests without a
// usable token count (see CountState), and the answers whose text came at
// once, which were not streamed.

// unstreamed reports whether an ok record holds two or more tokens by a
// server count whose text came at once: one text-bearing chunk, or, with
// no chunk arrivals, its first and last text at the same time. It is a
// reply that was not streamed (one JSON body, a server that ignored
// "stream") or a stream that sent its whole text in one chunk. Its E2E
// is a sample; its TTFT is not a time to first token, its TPOT not a time
// per token (it would read 0), and both leave it out, counted in
// Accounting.Unstreamed. It is told from the record alone, so no file
// format needs a field for it.
func (r *Record) unstreamed() bool {
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
