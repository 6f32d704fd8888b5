package llmmetrics

import (
	"fmt"
	"time"

	"github.com/llmmetrics/llmmetrics/internal/exact"
)

// Basis says what the gaps between a request's text-bearing chunks measure.
type Basis uint8

const (
	// BasisToken: the request had as many text-bearing chunks as output
	// tokens, so each gap is one inter-token latency.
	BasisToken Basis = iota
	// BasisChunk: some chunks carried several tokens, so the gaps are chunk
	// gaps, and the per-token gap distribution is unknown.
	BasisChunk
)

// String returns "token" or "chunk".
func (b Basis) String() string { return nameOf([]string{"token", "chunk"}, b, "Basis") }

// GapBasis reports whether the record's chunk gaps are per-token ITLs: they
// are when the number of text-bearing chunks equals the completion tokens n.
// It returns ErrNoChunks for a record without chunk arrivals.
func (r *Record) GapBasis() (Basis, error) {
	if err := r.checkChunks(); err != nil {
		return 0, err
	}
	return gapBasis(r), nil
}

func gapBasis(r *Record) Basis {
	if len(r.Chunks) == r.CompletionTokens {
		return BasisToken
	}
	return BasisChunk
}

// AppendGaps appends the gaps between consecutive text-bearing chunks of the
// request to dst and returns the extended slice:
//
//	gap_k = t_k − t_(k−1),  k = 2 … number of chunks
//
// They are inter-token latencies (ITLs) only when GapBasis is BasisToken. It
// returns ErrNoChunks for a record without chunk arrivals.
func (r *Record) AppendGaps(dst []time.Duration) ([]time.Duration, error) {
	if err := r.checkChunks(); err != nil {
		return dst, err
	}
	return appendGaps(dst, r), nil
}

func appendGaps(dst []time.Duration, r *Record) []time.Duration {
	for i := 1; i < len(r.Chunks); i++ {
		dst = append(dst, r.Chunks[i]-r.Chunks[i-1])
	}
	return dst
}

// MaxGap returns the request's largest gap between text-bearing chunks, its
// worst stall, which a mean TPOT hides. It returns ErrNoChunks for a record
// without chunk arrivals and ErrNoSamples for one with a single chunk.
func (r *Record) MaxGap() (time.Duration, error) {
	if err := r.checkChunks(); err != nil {
		return 0, err
	}
	if len(r.Chunks) < 2 {
		return 0, fmt.Errorf("%w: one chunk, no gap", ErrNoSamples)
	}
	return maxGap(r), nil
}

// maxGap assumes at least two chunks.
func maxGap(r *Record) time.Duration {
	var sq exact.Sum192
	_, hi := exact.Gaps(r.Chunks, &sq)
	return hi
}

func (r *Record) checkChunks() error {
	if err := r.checkText(); err != nil {
		return err
	}
	if len(r.Chunks) == 0 {
		return ErrNoChunks
	}
	return nil
}
