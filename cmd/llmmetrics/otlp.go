package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
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
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetricgrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
)

// otlpFlags are the flags of an OTLP push: where to, and how.
type otlpFlags struct {
	otlpEndpoint, otlpProtocol *string
}

func (o *otlpFlags) define(fs *flag.FlagSet) {
	o.otlpEndpoint = fs.String("otlp-endpoint", "", "push the run's metrics and each request's span as it runs, and at its end, to an OpenTelemetry collector at this base `URL` (http://127.0.0.1:4317 for gRPC, http://127.0.0.1:4318 for HTTP, which gets /v1/metrics); default OTEL_EXPORTER_OTLP_ENDPOINT, and the other OTEL_EXPORTER_OTLP_* variables and OTEL_SERVICE_NAME are honoured. A collector that cannot be reached never fails or slows the run: its exports are dropped and counted in one warning")
	o.otlpProtocol = fs.String("otlp-protocol", "", "the OTLP `protocol`: grpc or http (http/protobuf); default OTEL_EXPORTER_OTLP_PROTOCOL, else http")
}

// The defaults of a push where the standard variables say nothing: the
// exporters' own (10 s, and an export a minute) suit a collector beside a
// long-lived service, not a run of a few minutes that must not wait on
// one.
const (
	otlpTimeout  = 3 * time.Second
	otlpInterval = 10 * time.Second
)

// otlpConfig is an OTLP push as the flags and the environment say it.
type otlpConfig struct {
	// endpoint is the flag's base URL; "" leaves the exporters to read
	// OTEL_EXPORTER_OTLP_[SIGNAL_]ENDPOINT.
	endpoint        string
	metrics, traces otlpSignal
	// setInterval says that OTEL_METRIC_EXPORT_INTERVAL is unset.
	setInterval bool
	service     string // OTEL_SERVICE_NAME overrides it
}

// otlpSignal is the push of one signal, metrics or traces.
type otlpSignal struct {
	on       bool
	protocol string // grpc or http/protobuf
	// timeout is the exporter's and the final flush's; setTimeout says
	// that no variable set one, so the exporter is given it.
	timeout    time.Duration
	setTimeout bool
}

// errNoOTLPEndpoint is --otlp-protocol's error without an endpoint.
var errNoOTLPEndpoint = errors.New("--otlp-protocol needs --otlp-endpoint or OTEL_EXPORTER_OTLP_ENDPOINT")

// config returns the push the flags and the variables getenv reads ask
// for, nil for none. A signal is pushed when it has an endpoint, the
// flag's or a variable's (OTEL_EXPORTER_OTLP_ENDPOINT, or the signal's
// own), unless OTEL_SDK_DISABLED or OTEL_{METRICS,TRACES}_EXPORTER=none
// turns it off.
func (o *otlpFlags) config(getenv func(string) string, service string) (*otlpConfig, error) {
	c := &otlpConfig{endpoint: *o.otlpEndpoint, service: service}
	if c.endpoint != "" {
		u, err := url.Parse(c.endpoint)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("%w: --otlp-endpoint %q: want a URL such as http://127.0.0.1:4317", errUsage, c.endpoint)
		}
	}
	var err error
	if c.metrics, err = o.signal(getenv, "METRICS", c.endpoint); err != nil {
		return nil, err
	}
	if c.traces, err = o.signal(getenv, "TRACES", c.endpoint); err != nil {
		return nil, err
	}
	switch {
	case !c.metrics.on && !c.traces.on && *o.otlpProtocol != "" && !c.disabled(getenv):
		return nil, fmt.Errorf("%w: %v", errUsage, errNoOTLPEndpoint)
	case !c.metrics.on && !c.traces.on:
		return nil, nil
	}
	c.setInterval = getenv("OTEL_METRIC_EXPORT_INTERVAL") == ""
	return c, nil
}

// disabled says whether the variables turn every signal off.
func (c *otlpConfig) disabled(getenv func(string) string) bool {
	return strings.EqualFold(getenv("OTEL_SDK_DISABLED"), "true") ||
		getenv("OTEL_METRICS_EXPORTER") == "none" && getenv("OTEL_TRACES_EXPORTER") == "none"
}

// signal returns the push of a signal (METRICS, TRACES) to endpoint (""
// for the variables').
func (o *otlpFlags) signal(getenv func(string) string, signal, endpoint string) (otlpSignal, error) {
	var s otlpSignal
	if endpoint == "" && getenv("OTEL_EXPORTER_OTLP_ENDPOINT") == "" && getenv("OTEL_EXPORTER_OTLP_"+signal+"_ENDPOINT") == "" ||
		strings.EqualFold(getenv("OTEL_SDK_DISABLED"), "true") || getenv("OTEL_"+signal+"_EXPORTER") == "none" {
		return s, nil
	}
	s.on = true
	proto, from := *o.otlpProtocol, "--otlp-protocol"
	for _, v := range []string{"OTEL_EXPORTER_OTLP_" + signal + "_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL"} {
		if proto == "" {
			proto, from = getenv(v), v
		}
	}
	switch proto {
	case "grpc":
		s.protocol = "grpc"
	case "", "http", "http/protobuf":
		s.protocol = "http/protobuf"
	default:
		return s, fmt.Errorf("%w: %s %q: want grpc or http (http/protobuf)", errUsage, from, proto)
	}
	s.timeout, s.setTimeout = otlpTimeout, true
	for _, v := range []string{"OTEL_EXPORTER_OTLP_" + signal + "_TIMEOUT", "OTEL_EXPORTER_OTLP_TIMEOUT"} {
		if ms, err := strconv.Atoi(getenv(v)); err == nil && ms > 0 && s.setTimeout {
			s.timeout, s.setTimeout = time.Duration(ms)*time.Millisecond, false
		}
	}
	return s, nil
}

// metricExporter returns the OTLP metric exporter of the config's
// protocol. It sends nothing until the first export; it retries nothing:
// the metrics are cumulative, so that the next export carries what a
// failed one dropped.
func (c *otlpConfig) metricExporter(ctx context.Context) (sdkmetric.Exporter, error) {
	s := c.metrics
	if s.protocol == "grpc" {
		opts := []otlpmetricgrpc.Option{otlpmetricgrpc.WithRetry(otlpmetricgrpc.RetryConfig{Enabled: false})}
		if c.endpoint != "" {
			opts = append(opts, otlpmetricgrpc.WithEndpointURL(c.endpoint))
		}
		if s.setTimeout {
			opts = append(opts, otlpmetricgrpc.WithTimeout(s.timeout))
		}
		return otlpmetricgrpc.New(ctx, opts...)
	}
	opts := []otlpmetrichttp.Option{otlpmetrichttp.WithRetry(otlpmetrichttp.RetryConfig{Enabled: false})}
	if c.endpoint != "" {
		opts = append(opts, otlpmetrichttp.WithEndpointURL(signalURL(c.endpoint, "metrics")))
	}
	if s.setTimeout {
		opts = append(opts, otlpmetrichttp.WithTimeout(s.timeout))
	}
	return otlpmetrichttp.New(ctx, opts...)
}

// spanExporter returns the OTLP span exporter of the config's protocol,
// which retries nothing either: a span that fails to go is dropped.
func (c *otlpConfig) spanExporter(ctx context.Context) (sdktrace.SpanExporter, error) {
	s := c.traces
	if s.protocol == "grpc" {
		opts := []otlptracegrpc.Option{otlptracegrpc.WithRetry(otlptracegrpc.RetryConfig{Enabled: false})}
		if c.endpoint != "" {
			opts = append(opts, otlptracegrpc.WithEndpointURL(c.endpoint))
		}
		if s.setTimeout {
			opts = append(opts, otlptracegrpc.WithTimeout(s.timeout))
		}
		return otlptracegrpc.New(ctx, opts...)
	}
	opts := []otlptracehttp.Option{otlptracehttp.WithRetry(otlptracehttp.RetryConfig{Enabled: false})}
	if c.endpoint != "" {
		opts = append(opts, otlptracehttp.WithEndpointURL(signalURL(c.endpoint, "traces")))
	}
	if s.setTimeout {
		opts = append(opts, otlptracehttp.WithTimeout(s.timeout))
	}
	return otlptracehttp.New(ctx, opts...)
}

// signalURL returns the OTLP/HTTP URL of a signal under a base URL, as
// the specification builds it from OTEL_EXPORTER_OTLP_ENDPOINT.
func signalURL(base, signal string) string {
	u, _ := url.Parse(base) // checked by config
	u.Path = strings.TrimSuffix(u.Path, "/") + "/v1/" + signal
	return u.String()
}

// An otlpPush records a run's results into a live.Recorder whose
// OTelSink's MeterProvider pushes them over OTLP, every otlpInterval
// (OTEL_METRIC_EXPORT_INTERVAL) while the run goes on, and makes each
// result's span (live.SpanSink) on a TracerProvider that pushes them in
// batches (OTEL_BSP_*); both push once more at the run's end, also after
// a signal, since the run ends through its write stage then too.
type otlpPush struct {
	c     *otlpConfig
	model string // the plan's, for results that do not say theirs
	mp    *sdkmetric.MeterProvider
	rec   *live.Recorder // nil: no metrics pushed
	tp    *sdktrace.TracerProvider
	spans *live.SpanSink // nil: no spans pushed
	warn  *exportWarnings
}

// otlpStderr is where a push's warning goes (a test's buffer).
var otlpStderr io.Writer = os.Stderr

// startOTLP starts the push c describes of the requests for model, sent
// from epoch (the records' Sent 0), judging goodput against slo (nil:
// none), with the exporters' failures counted into one warning that stop
// writes.
func startOTLP(ctx context.Context, c *otlpConfig, model string, epoch time.Time, slo *llmmetrics.SLO) (*otlpPush, error) {
	p := &otlpPush{c: c, model: model, warn: &exportWarnings{}}
	res := otlpResource(ctx, c, p.warn)
	if c.traces.on {
		exp, err := c.spanExporter(ctx)
		if err != nil {
			return nil, fmt.Errorf("--otlp-endpoint: %w", err)
		}
		p.tp = sdktrace.NewTracerProvider(sdktrace.WithResource(res), sdktrace.WithBatcher(exp))
		p.spans = live.NewSpanSink(p.tp, live.SpanOptions{Epoch: epoch})
	}
	if c.metrics.on {
		exp, err := c.metricExporter(ctx)
		if err != nil {
			p.stop(io.Discard)
			return nil, fmt.Errorf("--otlp-endpoint: %w", err)
		}
		var ropts []sdkmetric.PeriodicReaderOption
		if c.setInterval {
			ropts = append(ropts, sdkmetric.WithInterval(otlpInterval))
		}
		p.mp = sdkmetric.NewMeterProvider(sdkmetric.WithResource(res),
			sdkmetric.WithReader(sdkmetric.NewPeriodicReader(exp, ropts...)))
		sink, err := live.NewOTelSink(live.Meter(p.mp), live.OTelOptions{})
		if err == nil {
			p.rec, err = live.NewRecorder(live.Options{SLO: slo, Sinks: []live.Sink{sink}})
		}
		if err != nil {
			p.stop(io.Discard)
			return nil, err
		}
	}
	otel.SetErrorHandler(p.warn)
	return p, nil
}

// otlpResource is the resource of a push: service.name c.service, which
// OTEL_SERVICE_NAME overrides, OTEL_RESOURCE_ATTRIBUTES and the SDK's.
// A malformed OTEL_RESOURCE_ATTRIBUTES goes to warn: the resource keeps
// what it could read, and the push goes on.
func otlpResource(ctx context.Context, c *otlpConfig, warn *exportWarnings) *resource.Resource {
	res, err := resource.New(ctx,
		resource.WithAttributes(semconv.ServiceName(c.service)),
		resource.WithFromEnv(), resource.WithTelemetrySDK())
	if err != nil {
		warn.Handle(err)
	}
	return res
}

// record records one result as it ends, under the plan's model when it
// does not name the model it asked for. A test or sizing request is
// counted as the warm-up is, under outcome warmup: the server had it,
// the report measures nothing of it.
func (p *otlpPush) record(res *observe.Result) {
	preflight := res.Record.Preflight && !res.Record.Warmup
	if preflight || res.RequestModel == "" {
		c := *res // the caller's result is not modified
		c.Record.Warmup = c.Record.Warmup || preflight
		if c.RequestModel == "" {
			c.RequestModel = p.model
		}
		res = &c
	}
	ctx := context.Background()
	if p.rec != nil {
		p.rec.RecordResult(ctx, res)
	}
	if p.spans != nil {
		p.spans.Result(ctx, res)
	}
}

// onResult returns f (nil for none) with the push recording each result
// after it.
func (p *otlpPush) onResult(f func(*observe.Result)) func(*observe.Result) {
	return func(res *observe.Result) {
		if f != nil {
			f(res)
		}
		p.record(res)
	}
}

// stop pushes what is left and stops, the spans and the metrics at
// once, each within its exporter's timeout, and says on w, in one line,
// how many exports failed.
func (p *otlpPush) stop(w io.Writer) {
	var wg sync.WaitGroup
	shutdown := func(timeout time.Duration, f func(context.Context) error) {
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(context.Background(), timeout)
			defer cancel()
			if err := f(ctx); err != nil {
				p.warn.Handle(err)
			}
		})
	}
	if p.tp != nil {
		shutdown(p.c.traces.timeout, p.tp.Shutdown)
	}
	if p.mp != nil {
		shutdown(p.c.metrics.timeout, p.mp.Shutdown)
	}
	wg.Wait()
	otel.SetErrorHandler(dropErrors{})
	if n, first := p.warn.count(); n > 0 {
		to := p.c.endpoint
		if to == "" {
			to = "the OTEL_EXPORTER_OTLP_* endpoint"
		}
		fmt.Fprintf(w, "llmmetrics: warning: %d OTLP export(s) to %s failed and were dropped (the run's figures are not affected); the first: %v\n", n, to, first)
	}
}

// exportWarnings counts the OpenTelemetry SDK's errors (failed exports)
// and keeps the first: an otel.ErrorHandler.
type exportWarnings struct {
	mu    sync.Mutex
	n     int
	first error
}

func (w *exportWarnings) Handle(err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.n == 0 {
		w.first = err
	}
	w.n++
}

func (w *exportWarnings) count() (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.n, w.first
}

// dropErrors is the error handler once a push has stopped.
type dropErrors struct{}

func (dropErrors) Handle(error) {}
