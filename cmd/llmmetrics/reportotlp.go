package main

import (
	"context"
	"flag"
	"fmt"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/live"
	"github.com/llmmetrics/llmmetrics/observe"
	"go.opentelemetry.io/otel"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// otlpReplay is report's --otlp: the run file's records replayed as
// spans, one a record, at their recorded times, pushed over OTLP after
// the report as run pushes them (otlp.go's exporters and variables).
type otlpReplay struct {
	otlpFlags // --otlp-endpoint, --otlp-protocol
	otlp      *bool
	epochText *string
	epoch     time.Time // --otlp-epoch's; zero: the run header's start
	on        bool      // set by parse: spans are to be pushed
	c         *otlpConfig
}

func (o *otlpReplay) define(fs *flag.FlagSet) {
	o.otlp = fs.Bool("otlp", false, "after the report, push each record's span, at its recorded time (the run header's start plus its send), to an OpenTelemetry collector, as run does: at --otlp-endpoint or OTEL_EXPORTER_OTLP_[TRACES_]ENDPOINT, by --otlp-protocol; it says on standard error how many spans went. A collector that cannot be reached never fails the report: one warning")
	o.epochText = fs.String("otlp-epoch", "", "with --otlp, the wall-clock `RFC3339` time at which the records' send time is 0, for a file with no run header (a CSV file, another tool's); it overrides a header's start")
	o.otlpFlags.define(fs)
}

// parse checks the flags against the variables and the report's other
// flags: --otlp-endpoint alone asks for the push too.
func (o *otlpReplay) parse(f *reportFlags) error {
	o.on = *o.otlp || *o.otlpEndpoint != ""
	if !o.on {
		if *o.epochText != "" || *o.otlpProtocol != "" {
			return fmt.Errorf("%w: --otlp-epoch and --otlp-protocol go with --otlp", errUsage)
		}
		return nil
	}
	if *o.epochText != "" {
		t, err := time.Parse(time.RFC3339Nano, *o.epochText)
		if err != nil {
			return valueError(fmt.Sprintf("--otlp-epoch %q: want an RFC3339 time such as 2025-06-01T12:00:00Z", *o.epochText))
		}
		o.epoch = t
	}
	if *f.dialect != "" {
		return fmt.Errorf("%w: --otlp replays the records under llmmetrics' conventions, not a --dialect summary", errUsage)
	}
	c, err := o.config(os.Getenv, "llmmetrics")
	if err != nil {
		return err
	}
	if c == nil || !c.traces.on {
		if c.disabledBy(os.Getenv) == "" {
			return fmt.Errorf("%w: --otlp needs --otlp-endpoint or OTEL_EXPORTER_OTLP_ENDPOINT (or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT)", errUsage)
		}
		return nil // pushed by no one: push says so
	}
	c.metrics.on = false // a replay pushes spans only
	o.c = c
	return nil
}

// disabledBy names the variable that turns traces off, "" for none; c may
// be nil.
func (c *otlpConfig) disabledBy(getenv func(string) string) string {
	switch {
	case strings.EqualFold(getenv("OTEL_SDK_DISABLED"), "true"):
		return "OTEL_SDK_DISABLED=true"
	case getenv("OTEL_TRACES_EXPORTER") == "none":
		return "OTEL_TRACES_EXPORTER=none"
	}
	return ""
}

// prepare returns the push of the runs' spans, to call after the
// report, or refuses a run without a wall clock (no header start, no
// --otlp-epoch) before anything is printed or sent.
func (o *otlpReplay) prepare(runs []namedRun) (push func(), err error) {
	if !o.on {
		return func() {}, nil
	}
	epochs := make([]time.Time, len(runs))
	for i, r := range runs {
		switch {
		case !o.epoch.IsZero():
			epochs[i] = o.epoch
		case r.run.Header != nil && !r.run.Header.Start.IsZero():
			epochs[i] = r.run.Header.Start
		default:
			return nil, valueError(fmt.Sprintf("--otlp: %s has no run header, so no wall-clock start for its spans: give --otlp-epoch RFC3339 (the time its send times count from)", r.name))
		}
	}
	return func() { o.push(runs, epochs) }, nil
}

// push replays the runs' records as spans, each run's from its epoch,
// and pushes them, then says on otlpStderr in one line how many went, or
// how many exports failed: a collector's failure is a warning, never an
// error. A run that stores no send times has no span, said in a note.
func (o *otlpReplay) push(runs []namedRun, epochs []time.Time) {
	if o.c == nil { // the variables turn traces off
		fmt.Fprintf(otlpStderr, "llmmetrics: --otlp: no span pushed: %s\n", o.c.disabledBy(os.Getenv))
		return
	}
	warn := &exportWarnings{}
	ctx := context.Background()
	exp, err := o.c.spanExporter(ctx)
	if err != nil { // a malformed variable the exporter reads
		fmt.Fprintf(otlpStderr, "llmmetrics: warning: --otlp: no span pushed: %v\n", err)
		return
	}
	counted := &countingExporter{next: exp}
	// Blocking: a file's spans come at once, more than the batcher's
	// queue holds, and none may be dropped for that.
	tp := sdktrace.NewTracerProvider(sdktrace.WithResource(otlpResource(ctx, o.c, warn)),
		sdktrace.WithBatcher(counted, sdktrace.WithBlocking()))
	otel.SetErrorHandler(warn)
	offered := 0
	for i, r := range runs {
		if r.run.NoSendTimes {
			fmt.Fprintf(otlpStderr, "llmmetrics: --otlp: %s stores no send times: its %d records have no time and no span\n", r.name, len(r.run.Records))
			continue
		}
		sink := live.NewSpanSink(tp, live.SpanOptions{Epoch: epochs[i]})
		k := replayKey(r.run.Header)
		for j := range r.run.Records {
			sink.Record(ctx, k, &r.run.Records[j])
			offered++
		}
	}
	sctx, cancel := context.WithTimeout(ctx, o.c.traces.timeout)
	defer cancel()
	if err := tp.Shutdown(sctx); err != nil {
		warn.Handle(err)
	}
	otel.SetErrorHandler(dropErrors{})
	to := o.c.endpoint
	if to == "" {
		to = tracesEndpoint(os.Getenv)
	}
	sent, failed, first := counted.count()
	if n, werr := warn.count(); failed == 0 && n > 0 {
		failed, first = n, werr
	}
	if failed > 0 {
		fmt.Fprintf(otlpStderr, "llmmetrics: warning: pushed %d of %d spans to %s: %d OTLP export(s) failed and were dropped (the report's figures are not affected); the first: %v\n", sent, offered, to, failed, first)
		return
	}
	fmt.Fprintf(otlpStderr, "llmmetrics: pushed %d spans to %s\n", sent, to)
}

// tracesEndpoint is the endpoint the variables give the spans.
func tracesEndpoint(getenv func(string) string) string {
	if e := getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"); e != "" {
		return e
	}
	return getenv("OTEL_EXPORTER_OTLP_ENDPOINT")
}

// replayKey is the label set of a run's records, from its header: the
// operation and provider of its API (as observe names a call's), the
// model, and the target's host and port. A file without a header, or
// whose header names no API, says neither operation nor provider: its
// spans get the conventions' chat and openai as stand-ins, the APIs
// every tool report reads drives by default.
func replayKey(h *llmmetrics.RunHeader) live.Key {
	k := live.Key{Operation: "chat", Provider: "openai"}
	if h == nil {
		return k
	}
	k.Model = h.Model
	u, err := url.Parse(h.Target)
	if err == nil && u.Host != "" {
		k.Endpoint = u.Hostname()
		if p, err := strconv.Atoi(u.Port()); err == nil {
			k.Port = p
		}
	}
	api, err := observe.ParseAPI(h.API)
	if err != nil || h.API == "" {
		return k
	}
	switch api {
	case observe.Completions, observe.TGI:
		k.Operation = "text_completion"
	case observe.Ollama:
		if u == nil || !strings.HasSuffix(u.Path, "/api/chat") {
			k.Operation = "text_completion"
		}
	}
	switch api {
	case observe.Ollama:
		k.Provider = "ollama"
	case observe.TGI:
		k.Provider = "tgi"
	}
	return k
}

// countingExporter counts the spans its exporter took and the exports
// that failed. Once one has failed, it sends no more: the rest are
// failed at once with the first's error, so that a collector that
// swallows packets costs one timeout, not one a batch.
type countingExporter struct {
	next sdktrace.SpanExporter

	mu           sync.Mutex
	sent, failed int
	first        error
}

func (e *countingExporter) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	e.mu.Lock()
	first := e.first
	e.mu.Unlock()
	err := first
	if err == nil {
		err = e.next.ExportSpans(ctx, spans)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if err != nil {
		e.failed++
		if e.first == nil {
			e.first = err
		}
		return err
	}
	e.sent += len(spans)
	return nil
}

func (e *countingExporter) Shutdown(ctx context.Context) error { return e.next.Shutdown(ctx) }

func (e *countingExporter) count() (sent, failed int, first error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.sent, e.failed, e.first
}
