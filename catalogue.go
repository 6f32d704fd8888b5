package llmmetrics

import (
	"fmt"
	"slices"
	"time"
)

// A Metric is one latency distribution of a [Summary], as the catalogue
// ([Metrics]) describes it: the report, its JSON, the gates, diff, sweep,
// the spectrum and the charts all take a metric's names, unit and basis
// from here. UnmarshalText finds a metric by its key. The zero Metric is
// none: its methods find nothing.
type Metric struct {
	// Key names the metric in JSON (the distribution's key is Key + "_" +
	// Unit: "ttft_ms"), in Summary.Absent, in --slo and --fail-if, and in
	// the figures of diff and sweep ("ttft p99").
	Key string
	// Name is how prose and charts name it ("largest gap per request");
	// Label is its row in a table ("max gap/request").
	Name, Label string
	// Unit is the unit its values are written in: "ms".
	Unit string
	// Over is its basis: what one sample is, and over which requests.
	Over string
	// Weighting says what its mean weights equally: each "request", or
	// each "gap".
	Weighting string
	// Doc is where its formula is documented, as go doc names it
	// ("Record.TTFT").
	Doc string
	// PerRequest is true for the metrics with a value per request
	// (Value), which an SLO can limit: TTFT, TPOT, E2E and the largest
	// gap.
	PerRequest bool
	// Headline is true for the figures every comparison shows (diff,
	// sweep, the strata and the charts): TTFT, TPOT and E2E.
	Headline bool
	// Scheduled is the key of the same figure measured from each
	// request's scheduled time rather than its send, where there is one.
	Scheduled string
	// Client is true for the distributions of Summary.Client, which
	// outputs give apart (in JSON under "client").
	Client bool

	id metricID
}

// metricID tells the catalogue's metrics apart; 0 is none.
type metricID uint8

const (
	_ metricID = iota
	idTTFT
	idTPOT
	idE2E
	idITL
	idMaxGap
	idTTFTFromScheduled
	idE2EFromScheduled
)

// The metrics' keys, which the rest of the package uses by these names.
const (
	keyTTFT   = "ttft"
	keyTPOT   = "tpot"
	keyE2E    = "e2e"
	keyITL    = "itl"
	keyMaxGap = "max_gap"

	keyTTFTFromScheduled = keyTTFT + "_from_scheduled"
	keyE2EFromScheduled  = keyE2E + "_from_scheduled"
)

// catalogue is every metric, in the order the outputs list them.
var catalogue = []Metric{
	{Key: keyTTFT, Name: "TTFT", Label: "TTFT", Unit: "ms", Over: "ok requests", Weighting: "request",
		Doc: "Record.TTFT", PerRequest: true, Headline: true, Scheduled: keyTTFTFromScheduled, id: idTTFT},
	{Key: keyTPOT, Name: "TPOT", Label: "TPOT", Unit: "ms", Over: "ok requests with n ≥ 2 and a usable count", Weighting: "request",
		Doc: "Record.TPOT", PerRequest: true, Headline: true, id: idTPOT},
	{Key: keyE2E, Name: "E2E", Label: "E2E", Unit: "ms", Over: "ok requests", Weighting: "request",
		Doc: "Record.E2E", PerRequest: true, Headline: true, Scheduled: keyE2EFromScheduled, id: idE2E},
	{Key: keyITL, Name: "ITL", Label: "ITL", Unit: "ms", Over: "the gaps between consecutive text chunks of ok requests, pooled", Weighting: "gap",
		Doc: "Record.AppendGaps", id: idITL},
	{Key: keyMaxGap, Name: "largest gap per request", Label: "max gap/request", Unit: "ms", Over: "ok requests with two or more chunk arrivals", Weighting: "request",
		Doc: "Record.MaxGap", PerRequest: true, id: idMaxGap},
	{Key: keyTTFTFromScheduled, Name: "TTFT from the scheduled time", Label: "TTFT from sched.", Unit: "ms", Over: "ok requests of an open loop", Weighting: "request",
		Doc: "ClientStats.TTFTFromScheduled", Client: true, id: idTTFTFromScheduled},
	{Key: keyE2EFromScheduled, Name: "E2E from the scheduled time", Label: "E2E from sched.", Unit: "ms", Over: "ok requests of an open loop", Weighting: "request",
		Doc: "ClientStats.E2EFromScheduled", Client: true, id: idE2EFromScheduled},
}

// Metrics returns the catalogue of the latency distributions a Summary
// holds, in the order the outputs list them: TTFT, TPOT, E2E, ITL, the
// largest gap per request, then TTFT and E2E from the scheduled time. The
// slice is the caller's.
func Metrics() []Metric { return slices.Clone(catalogue) }

// metricByKey returns the metric of a key, and false for a key the
// catalogue does not hold.
func metricByKey(key string) (Metric, bool) {
	for _, m := range catalogue {
		if m.Key == key {
			return m, true
		}
	}
	return Metric{}, false
}

// UnmarshalText sets m to the catalogue's metric of a key ("ttft",
// "max_gap"). For a key the catalogue does not hold it returns an error
// wrapping ErrInvalidOption that names the keys it holds, and leaves m
// as it was. It makes a Metric a flag (flag.TextVar) or a JSON string.
func (m *Metric) UnmarshalText(text []byte) error {
	found, ok := metricByKey(string(text))
	if !ok {
		keys := make([]string, len(catalogue))
		for i, c := range catalogue {
			keys[i] = c.Key
		}
		return fmt.Errorf("%w: unknown metric %q (want %s)", ErrInvalidOption, text, orList(keys))
	}
	*m = found
	return nil
}

// MarshalText writes the metric's key, as UnmarshalText reads it.
func (m Metric) MarshalText() ([]byte, error) { return []byte(m.Key), nil }

// Distribution returns the metric's distribution in s, or nil when s has
// none (Summary.Absent says why, for the metrics outside Summary.Client).
func (m Metric) Distribution(s *Summary) *Distribution {
	if s == nil {
		return nil
	}
	switch m.id {
	case idTTFT:
		return s.TTFT
	case idE2E:
		return s.E2E
	case idMaxGap:
		return s.MaxGap
	case idTPOT:
		if s.TPOT != nil {
			return &s.TPOT.Distribution
		}
	case idITL:
		if s.ITL != nil {
			return &s.ITL.Distribution
		}
	case idTTFTFromScheduled:
		if s.Client != nil {
			return s.Client.TTFTFromScheduled
		}
	case idE2EFromScheduled:
		if s.Client != nil {
			return s.Client.E2EFromScheduled
		}
	}
	return nil
}

// Value returns one request's value of a PerRequest metric, as its
// method (Doc) computes it, with that method's error. Any other metric (the
// pooled gaps, the figures from the scheduled time) gives an error wrapping
// ErrInvalidOption.
func (m Metric) Value(r *Record) (time.Duration, error) {
	if (m.id == idTTFT || m.id == idTPOT) && r.Validate() == nil && r.Status == StatusOK && r.unstreamed() {
		return 0, fmt.Errorf("%w (%d tokens in one arrival)", ErrNotStreamed, r.CompletionTokens)
	}
	switch m.id {
	case idTTFT:
		return r.TTFT()
	case idTPOT:
		return r.TPOT()
	case idE2E:
		return r.E2E()
	case idMaxGap:
		return r.MaxGap()
	}
	return 0, fmt.Errorf("%w: %q has no value per request", ErrInvalidOption, m.Key)
}

// Limit returns the SLO's limit on a PerRequest metric (0: no limit), and
// false for any other metric, which an SLO cannot limit.
func (m Metric) Limit(slo SLO) (time.Duration, bool) {
	if p := m.limit(&slo); p != nil {
		return *p, true
	}
	return 0, false
}

// limit returns where slo holds the metric's limit, or nil.
func (m Metric) limit(slo *SLO) *time.Duration {
	switch m.id {
	case idTTFT:
		return &slo.TTFT
	case idTPOT:
		return &slo.TPOT
	case idE2E:
		return &slo.E2E
	case idMaxGap:
		return &slo.MaxGap
	}
	return nil
}
