// Package reason holds the words of reasons that the root's summary and
// the bounded one both give, so that they say them alike.
package reason

// AtOnce says how unstreamed answers' text came at once, oneChunk of
// them (not bodies) in one chunk of no known count, which may have held
// one token.
func AtOnce(oneChunk int) string {
	if oneChunk > 0 {
		return "not streamed, or in one chunk that no count says held one token"
	}
	return "not streamed"
}

// NoGaps says why a run of ok ok requests has no chunk gap, noChunks of
// them without chunk arrivals.
func NoGaps(ok, noChunks int) string {
	if ok == noChunks {
		return "no ok record carries chunk arrival times (a CSV file keeps none, nor do some tools' files)"
	}
	return "no ok request has two or more chunk arrivals"
}
