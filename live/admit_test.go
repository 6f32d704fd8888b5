package live

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/observe"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// offeredByKey returns each label set's offered, ok and failed requests.
func offeredByKey(rec *Recorder) map[Key][3]int64 {
	out := map[Key][3]int64{}
	for _, s := range rec.Snapshots(false) {
		out[s.Key] = [3]int64{s.Counts.Offered, s.Counts.OK, s.Counts.Failed}
	}
	return out
}

// resultOf is a Transport's result for key k: ok, or an HTTP failure of
// status code (which gets no response model).
func resultOf(k Key, code int) *observe.Result {
	r := &observe.Result{Operation: k.Operation, Provider: k.Provider, RequestModel: k.Model, ResponseModel: k.ResponseModel,
		ServerAddress: k.Endpoint, ServerPort: k.Port, HTTPStatus: 200, Streamed: true, UsageKnown: true}
	r.Record = *okRecord()
	if code != 200 {
		r.ResponseModel, r.HTTPStatus = "", code
		r.Record = llmmetrics.Record{ID: "f", Status: llmmetrics.StatusError, Message: fmt.Sprintf("HTTP %d: bad", code)}
	}
	return r
}

// Once 200 model names have filled the limit, a known model's failures
// (no response model) stay beside its successes: the limit counts label
// sets without their response model, so that the error rate of the model
// is its own.
func TestFailuresFollowSuccesses(t *testing.T) {
	rec, err := NewRecorder(Options{MaxLabelSets: 3})
	require.NoError(t, err)
	ctx := context.Background()
	served := Key{Operation: "chat", Provider: "openai", Model: "tiny", ResponseModel: "tiny", Endpoint: "h", Port: 8080}
	failed := served
	failed.ResponseModel = ""
	rec.RecordResult(ctx, resultOf(served, 200))
	for i := range 200 {
		k := served
		k.Model, k.ResponseModel = fmt.Sprint("m", i), fmt.Sprint("m", i)
		rec.RecordResult(ctx, resultOf(k, 200))
	}
	for range 16 {
		rec.RecordResult(ctx, resultOf(served, 400))
		rec.RecordResult(ctx, resultOf(served, 200))
	}
	m0, m1 := served, served
	m0.Model, m0.ResponseModel = "m0", "m0"
	m1.Model, m1.ResponseModel = "m1", "m1"
	// tiny, m0 and m1 are the three identities; m2 … m199 (198) overflow.
	assert.Equal(t, map[Key][3]int64{
		served:   {1 + 16, 1 + 16, 0},
		failed:   {16, 0, 16},
		m0:       {1, 1, 0},
		m1:       {1, 1, 0},
		otherKey: {198, 198, 0},
	}, offeredByKey(rec))
	assert.Equal(t, int64(198), rec.Overflowed())
}

// An identity keeps MaxResponseModels (4) response models; the fifth and
// sixth are kept under its response model Other, counted as overflows;
// its failures' label set is not among the four; removing a response
// model's label set makes room for another.
func TestResponseModelsPerIdentity(t *testing.T) {
	e := newExporters(t, Options{MaxLabelSets: 1})
	ctx := context.Background()
	k := Key{Operation: "chat", Provider: "openai", Model: "auto", Endpoint: "h", Port: 443}
	rec := e.rec
	rec.RecordResult(ctx, resultOf(k, 503))
	for i := range 6 {
		k.ResponseModel = fmt.Sprint("r", i)
		rec.RecordResult(ctx, resultOf(k, 200))
	}
	other := k
	other.Model = "another" // a second identity, beyond the limit of 1
	rec.RecordResult(ctx, resultOf(other, 200))
	want := map[Key][3]int64{otherKey: {1, 1, 0}}
	for _, m := range []string{"", "r0", "r1", "r2", "r3"} {
		k.ResponseModel = m
		want[k] = [3]int64{1, 1, 0}
		if m == "" {
			want[k] = [3]int64{1, 0, 1}
		}
	}
	k.ResponseModel = Other
	want[k] = [3]int64{2, 2, 0} // r4 and r5
	assert.Equal(t, want, offeredByKey(rec))
	assert.Equal(t, int64(2+1), rec.Overflowed(), "r4, r5 and the second identity")
	_, body := scrape(t, e.sinkReg)
	assert.True(t, strings.Contains(body, "\nllmmetrics_label_set_overflow_total 3\n"), "the sink counts the same overflows")

	k.ResponseModel = "r0"
	require.True(t, rec.Remove(k))
	k.ResponseModel = "r6"
	rec.RecordResult(ctx, resultOf(k, 200))
	assert.Equal(t, [3]int64{1, 1, 0}, offeredByKey(rec)[k], "r0's room was taken by r6")
	assert.Equal(t, int64(3), rec.Overflowed())
}
