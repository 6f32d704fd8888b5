package llmmetrics

import (
	"errors"
	"fmt"
	"strings"

	"github.com/llmmetrics/llmmetrics/internal/errlist"
	"github.com/llmmetrics/llmmetrics/internal/plural"
)

// Sentinel errors. Every error returned by this package for bad data or bad
// options wraps one of these, so callers can test for a class of problem with
// errors.Is. Problems with one record are wrapped in a *RecordError that names
// the record and the field.
var (
	// ErrNoRecords means no records were offered at all.
	ErrNoRecords = errors.New("llmmetrics: no records")
	// ErrNoSamples means a statistic was asked of an empty sample.
	ErrNoSamples = errors.New("llmmetrics: no samples")
	// ErrNonFinite means a number was NaN or infinite.
	ErrNonFinite = errors.New("llmmetrics: value is NaN or infinite")
	// ErrNegativeDuration means a time lies before the time it is measured
	// from: the first text before the send time, for example.
	ErrNegativeDuration = errors.New("llmmetrics: time before its start boundary")
	// ErrNonMonotonic means chunk arrivals go backwards. Equal arrivals are allowed.
	ErrNonMonotonic = errors.New("llmmetrics: chunk arrivals go backwards")
	// ErrTimeOrder means the last text arrived before the first.
	ErrTimeOrder = errors.New("llmmetrics: last text before first text")
	// ErrChunkMismatch means the chunk arrivals disagree with the first and
	// last text times, or the per-chunk token counts disagree with the chunks
	// or with the completion tokens.
	ErrChunkMismatch = errors.New("llmmetrics: chunk data disagrees with the record")
	// ErrNegativeCount means a token count was negative.
	ErrNegativeCount = errors.New("llmmetrics: negative token count")
	// ErrTokensBelowChunks means the completion tokens are fewer than the
	// text-bearing chunks, which each carry at least one token.
	ErrTokensBelowChunks = errors.New("llmmetrics: completion tokens fewer than text-bearing chunks")
	// ErrNoCount is returned by a per-record figure that needs the token
	// count n (TPOT, User TPS) of an ok record that has no usable count:
	// no usage, a usage of zero, or a count below its chunks (see
	// CountState).
	ErrNoCount = errors.New("llmmetrics: no usable output token count")
	// ErrNotStreamed is returned by Metric.Value for the TTFT or TPOT of
	// an answer whose two or more tokens came at once (one JSON body, or
	// one chunk holding them all): its first text is its last, so it has
	// no time to first token or per token (see Accounting.Unstreamed).
	ErrNotStreamed = errors.New("llmmetrics: the answer's text came at once, not streamed")
	// ErrDuplicateID means two records share an id.
	ErrDuplicateID = errors.New("llmmetrics: duplicate record id")
	// ErrMissingField means a field that the record needs is absent.
	ErrMissingField = errors.New("llmmetrics: missing field")
	// ErrMixedSends means some records of a JSONL file give their send time and some do not.
	ErrMixedSends = errors.New("llmmetrics: send times on some records only (a file gives every one or none)")
	// ErrBadStatus means a status name is not one of ok, error, timeout, cancelled.
	ErrBadStatus = errors.New("llmmetrics: unknown status")
	// ErrSyntax means a value or a row could not be parsed.
	ErrSyntax = errors.New("llmmetrics: syntax error")
	// ErrPercentile means a percentile is outside [0, 100] or has more
	// decimal places than the package computes exactly.
	ErrPercentile = errors.New("llmmetrics: invalid percentile")
	// ErrMethod means an unknown percentile method.
	ErrMethod = errors.New("llmmetrics: unknown percentile method")
	// ErrInvalidWindow means a throughput window of zero or negative length.
	ErrInvalidWindow = errors.New("llmmetrics: window of zero or negative length")
	// ErrInvalidSLO means a negative SLO limit or an unknown SLO key.
	ErrInvalidSLO = errors.New("llmmetrics: invalid SLO")
	// ErrZeroInterval means a rate was asked over an interval of length
	// zero, such as the decode time of a request whose chunks all arrived
	// together.
	ErrZeroInterval = errors.New("llmmetrics: interval of zero length")
	// ErrNoText is returned by a per-record metric asked of a record that
	// has no output text: a failed or zero-token request.
	ErrNoText = errors.New("llmmetrics: record has no output text")
	// ErrTooFewTokens is returned by TPOT and UserTPS for a request with
	// fewer than two output tokens, which has no inter-token gap.
	ErrTooFewTokens = errors.New("llmmetrics: fewer than two output tokens")
	// ErrRejected is wrapped by the error a reader returns when it set rows
	// aside (see ReadOptions.Lenient and Run.Err): the Run it returns with
	// that error holds them, and Run.Summarize counts them.
	ErrRejected = errors.New("llmmetrics: rows rejected")
	// ErrOutOfRange means a count or a time lies outside the range this
	// package computes with exactly: a token count above 2³¹ − 1, or a time
	// further than 2⁶¹ ns (about 73 years) from its boundary, beyond which
	// sums of times could overflow.
	ErrOutOfRange = errors.New("llmmetrics: value out of range")
	// ErrInvalidOption means an analysis was asked for with settings that
	// make no sense: a warm-up spec with none or several ways set, strata
	// bounds that do not ascend, a gate condition that cannot be read, a
	// sweep with no levels.
	ErrInvalidOption = errors.New("llmmetrics: invalid option")
	// ErrMerge means runs that cannot be merged into one: a file without a
	// run header, whose start time the alignment needs.
	ErrMerge = errors.New("llmmetrics: runs cannot be merged")
	// ErrNoChunks means a metric needs per-chunk arrival times and the
	// record has none. It wraps ErrMissingField.
	ErrNoChunks = fmt.Errorf("%w: no chunk arrivals", ErrMissingField)
	// ErrAfterEnd means a JSONL file goes on after its run's end line,
	// which must be its last (two runs appended to one file, say): reading
	// leniently does not set such text aside. It wraps ErrSyntax.
	ErrAfterEnd = fmt.Errorf("%w: text after the run's end line", ErrSyntax)
)

// A RecordError reports a problem with one record: which record (its index
// in the input, its id, and its line when it came from a file), which field,
// and what is wrong (Err, which wraps a sentinel).
type RecordError struct {
	Index  int    // position in the input, from 0; -1 when unknown
	Line   int    // line in the input file, from 1; 0 when not from a file
	Column int    // column in the input file, from 1; 0 when unknown
	ID     string // the record's id, when known
	Field  string // the field at fault, as named in the file or struct
	Err    error
}

func (e *RecordError) Error() string {
	var b strings.Builder
	b.WriteString("llmmetrics: ")
	if e.Line > 0 {
		fmt.Fprintf(&b, "line %d", e.Line)
		if e.Column > 0 {
			fmt.Fprintf(&b, ", column %d", e.Column)
		}
	} else {
		fmt.Fprintf(&b, "record %d", e.Index)
	}
	if e.ID != "" {
		fmt.Fprintf(&b, " (id %q)", e.ID)
	}
	if e.Field != "" {
		fmt.Fprintf(&b, ": field %s", e.Field)
	}
	b.WriteString(": ")
	b.WriteString(strings.TrimPrefix(e.Err.Error(), "llmmetrics: "))
	return b.String()
}

func (e *RecordError) Unwrap() error { return e.Err }

// fieldError is the error Validate returns before the caller knows the
// record's position: it names the field only.
func fieldError(field string, sentinel error, format string, args ...any) *RecordError {
	err := sentinel
	if format != "" {
		err = fmt.Errorf("%w: %s", sentinel, fmt.Sprintf(format, args...))
	}
	return &RecordError{Index: -1, Field: field, Err: err}
}

// joinRecordErrors combines record errors into one error whose message
// counts them (with unlisted more, counted but not kept) and shows the first
// few. errors.Is and errors.As see every listed one, and kind when it is
// not nil.
func joinRecordErrors(errs []*RecordError, unlisted int, kind error) error {
	n := len(errs) + unlisted
	head := fmt.Sprintf("llmmetrics: %d invalid records", n)
	switch {
	case n == 0:
		return nil
	case n == 1 && len(errs) == 1 && kind == nil:
		return errs[0]
	case kind == ErrRejected:
		head = "llmmetrics: " + plural.Of(n, "row") + " rejected"
	}
	return &errlist.List[*RecordError]{Errs: errs, Unlisted: unlisted, Kind: kind, Head: head, Prefix: "llmmetrics: "}
}
