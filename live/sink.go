package live

import (
	"context"

	"github.com/llmmetrics/llmmetrics"
)

// A Sink receives the observation of every record, by value (so that
// recording allocates nothing), from the goroutine that recorded it, with
// the context it was recorded with (a sink that supports exemplars takes
// the trace from it): it must be safe for concurrent use. The Key's values
// are valid label values. A sink may also be a Preparer (called by
// Recorder.Declare), a Forgetter (by Recorder.Remove), an InFlightAdder
// (by the Recorder's Transport) and a RecordObserver (called in place of
// Observe, with the record); a sink declares which with
// a line such as
//
//	var _ live.Forgetter = (*MySink)(nil)
//
// so that a misspelt method fails to compile rather than never being
// called.
type Sink interface {
	Observe(ctx context.Context, k Key, o Observation)
}

// A Preparer is a Sink's optional method: it creates a label set's series
// ahead of their first observation, when Recorder.Declare declares it, so
// that they are exported at zero.
type Preparer interface {
	Prepare(k Key)
}

// A Forgetter is a Sink's optional method: it deletes a label set's
// series when Recorder.Remove removes it.
type Forgetter interface {
	Forget(k Key)
}

// An InFlightAdder is a Sink's optional method: it keeps the gauge of
// calls in flight through the Recorder's Transport, d being 1 as a call
// begins and -1 as it ends.
type InFlightAdder interface {
	AddInFlight(ctx context.Context, d int64)
}

// A RecordObserver is a Sink's optional method, called by the Recorder in
// place of Observe for sinks that need more of a record than its figures
// (a RecordSink writes it to a run file): the record comes by value, so
// that the caller's record does not escape to the heap, its slices and
// its Client shared with the caller's: read-only, and not to be kept past
// the call unless the caller leaves them be (observe's results do).
type RecordObserver interface {
	ObserveRecord(ctx context.Context, k Key, o Observation, r llmmetrics.Record)
}
