// Package conformance is a kit that benchmark tools test their own
// metrics against: a versioned set of cases, each a run of requests (with
// every event of their streams), the options to summarize it with, the
// figures the specification gives for it, and one sentence naming the
// trap it catches and the section of the specification that settles it.
//
// The specification is the project's: TTFT is stamped at the first chunk
// that carries output text, from the request's send; E2E ends at the last
// such chunk; TPOT = (E2E − TTFT)/(n − 1) with n the server's reported
// count, for n ≥ 2; User TPS = (n − 1)/(E2E − TTFT); one- and zero-token
// requests are counted, never given a TPOT of 0; failures stay in the
// attainment denominator; percentiles are taken over the pooled
// per-request sample by the method named; a figure that cannot be
// computed is absent, never 0 or NaN. See docs/conformance.md for the
// cases by trap.
//
// A Go tool tests itself inside go test with Check, giving a Tool: a
// function from a case (its requests and options) to the figures it
// computes. Tools in other languages read the cases that `llmmetrics
// conformance export DIR` writes, and have their answers checked by
// `llmmetrics conformance check FILE`.
//
// The cases' expected figures come from the specification's worked
// examples, from hand arithmetic written beside each case (Case.Arithmetic),
// and, for the generated breadth cases, from a deliberately plain
// reference in exact rational arithmetic in this package's tests, written
// apart from the library. Every hand case is checked against that
// reference too, and the library's own test runs every case through
// Library.
package conformance
