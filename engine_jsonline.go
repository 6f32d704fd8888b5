package llmmetrics

import (
	"fmt"

	"github.com/llmmetrics/llmmetrics/internal/jsonline"
)

// A line of the JSONL format is parsed by internal/jsonline, into the
// keys it gives; record turns them into a Record, with the format's rules
// that involve several keys, and its errors into *RecordErrors.

// The format's bounds are the root's (the index is 0 only when they are
// equal).
var _ = [1]int{}[jsonline.MaxTime-maxTime+jsonline.MaxCount-maxCount]

// parseStatus reads a status for jsonline.Parser.
func parseStatus(b []byte) (uint8, error) {
	s, err := parseStatusBytes(b)
	return uint8(s), err
}

// record returns the record of a parsed line, or its error. On an error the
// record holds the id, when it was read.
func record(l *jsonline.Line, e *jsonline.Error) (Record, *RecordError) {
	if e != nil {
		err := e.Err
		if err == nil {
			sentinel := ErrSyntax
			if e.Kind == jsonline.OutOfRange {
				sentinel = ErrOutOfRange
			}
			err = fmt.Errorf("%w: %s", sentinel, e.Detail)
		}
		return Record{ID: l.ID}, &RecordError{Index: -1, Field: e.Key, Column: e.Column, Err: err}
	}
	rec := Record{
		ID: l.ID, Status: Status(l.Status), Message: l.Message, Sent: l.Sent,
		FirstText: l.First, LastText: l.Last, Chunks: l.Chunks, ChunkTokens: l.ChunkTokens,
		PromptTokens: l.Prompt, CompletionTokens: l.Completion, MaxTokens: l.MaxTokens,
		Warmup: l.Warmup, Preflight: l.Preflight,
		// The server reported no count: n unknown, never guessed.
		NoUsage: !l.HasCompletion && Status(l.Status) == StatusOK,
	}
	if l.HasClient {
		c := ClientSide(l.Client)
		rec.Client = &c
	}
	if rec.Status == StatusOK && (rec.CompletionTokens > 0 || rec.NoUsage) && len(rec.Chunks) == 0 {
		what := "an ok record"
		if rec.NoUsage {
			what = "an ok record without completion_tokens"
		}
		key := ""
		switch {
		case !l.HasFirst:
			key = "first_text_ns"
		case !l.HasLast:
			key = "last_text_ns"
		default:
			return rec, nil
		}
		return rec, &RecordError{Index: -1, Field: key, Err: fmt.Errorf("%w: %s needs chunk_arrivals_ns or first_text_ns and last_text_ns", ErrMissingField, what)}
	}
	return rec, nil
}
