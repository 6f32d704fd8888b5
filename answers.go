package llmmetrics

import "time"

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

// streamed is the opposite of unstreamed, for nameRequests.
func streamed(r *Record) bool { return !r.unstreamed() }

// streamedTPOT says which ok records have a TPOT sample once the
// unstreamed are left out.
func streamedTPOT(r *Record) bool { return hasTPOT(r) && !r.unstreamed() }

// okFacts are what the workload's pass over the records notes of the ok
// ones for the summary.
type okFacts struct {
	ok, tpot int // the ok records seen, and those with a TPOT sample (hasTPOT)
	// noCountMax counts the ok records without a usable count that say
	// their max_tokens; noCountChunks those with chunk arrivals, whose
	// gaps' basis is unknown.
	noCountMax, noCountChunks int
	// unstreamed holds where each unstreamed answer is among the ok
	// records (its TTFT sample) and among those with a TPOT sample, and
	// its gaps, n − 1.
	unstreamed []unstreamedAt
}

type unstreamedAt struct{ ok, tpot, gaps int }

// see notes an ok record.
func (f *okFacts) see(r *Record) {
	switch {
	case !r.counted():
		if r.MaxTokens > 0 {
			f.noCountMax++
		}
		if len(r.Chunks) > 0 {
			f.noCountChunks++
		}
	case r.unstreamed():
		f.unstreamed = append(f.unstreamed, unstreamedAt{f.ok, f.tpot, r.CompletionTokens - 1})
	}
	f.ok++
	if hasTPOT(r) {
		f.tpot++
	}
}

// without returns the samples of xs but those at the positions at, which
// are in increasing order.
func without(xs sample, at []int) sample {
	out := make([]time.Duration, 0, xs.N-len(at))
	j := 0
	xs.Each(func(seg []time.Duration) {
		for _, x := range seg {
			if len(at) > 0 && at[0] == j {
				at = at[1:]
			} else {
				out = append(out, x)
			}
			j++
		}
	})
	return flat(out)
}
