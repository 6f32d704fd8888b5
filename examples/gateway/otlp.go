package main

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/llmmetrics/llmmetrics/live"
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

// The gateway pushes over OTLP what it serves at /metrics when
// --otlp-endpoint (or OTEL_EXPORTER_OTLP_ENDPOINT) says where to: the
// same recorder feeds its Collector and an OTelSink on a MeterProvider
// whose PeriodicReader exports every 10 s (OTEL_METRIC_EXPORT_INTERVAL),
// and once more as the gateway stops on SIGINT, SIGTERM or SIGHUP. Each
// call gets a span of the GenAI conventions (live.Tracer), whose trace
// the upstream's request carries (traceparent), pushed in batches.
// Exports that fail are dropped, retried never (the metrics are
// cumulative: the next export carries them), time out after 3 s
// (OTEL_EXPORTER_OTLP_TIMEOUT), and are logged once, then counted.

const (
	otlpTimeout  = 3 * time.Second
	otlpInterval = 10 * time.Second
)

// otlpConfig is an OTLP push as the flags and the environment say it.
type otlpConfig struct {
	endpoint        string // the flag's base URL; "": the exporters read OTEL_EXPORTER_OTLP_[SIGNAL_]ENDPOINT
	metrics, traces otlpSignal
	setInterval     bool // OTEL_METRIC_EXPORT_INTERVAL is unset
}

// otlpSignal is the push of one signal, metrics or traces.
type otlpSignal struct {
	on         bool
	protocol   string // grpc or http/protobuf
	timeout    time.Duration
	setTimeout bool // no variable set the timeout: the exporter is given it
}

// otlpOf returns the push --otlp-endpoint and --otlp-protocol and the
// variables getenv reads ask for, nil for none.
func otlpOf(endpoint, protocol string, getenv func(string) string) (*otlpConfig, error) {
	c := &otlpConfig{endpoint: endpoint, setInterval: getenv("OTEL_METRIC_EXPORT_INTERVAL") == ""}
	if endpoint != "" {
		u, err := url.Parse(endpoint)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("--otlp-endpoint %q: want a URL such as http://127.0.0.1:4317", endpoint)
		}
	}
	var err error
	if c.metrics, err = signalOf("METRICS", endpoint, protocol, getenv); err != nil {
		return nil, err
	}
	if c.traces, err = signalOf("TRACES", endpoint, protocol, getenv); err != nil {
		return nil, err
	}
	switch {
	case c.metrics.on || c.traces.on:
		return c, nil
	case endpoint == "" && protocol != "":
		return nil, errors.New("--otlp-protocol needs --otlp-endpoint or OTEL_EXPORTER_OTLP_ENDPOINT")
	}
	return nil, nil
}

// signalOf returns the push of a signal (METRICS, TRACES).
func signalOf(signal, endpoint, protocol string, getenv func(string) string) (otlpSignal, error) {
	var s otlpSignal
	if endpoint == "" && getenv("OTEL_EXPORTER_OTLP_ENDPOINT") == "" && getenv("OTEL_EXPORTER_OTLP_"+signal+"_ENDPOINT") == "" ||
		strings.EqualFold(getenv("OTEL_SDK_DISABLED"), "true") || getenv("OTEL_"+signal+"_EXPORTER") == "none" {
		return s, nil
	}
	s.on = true
	from := "--otlp-protocol"
	for _, v := range []string{"OTEL_EXPORTER_OTLP_" + signal + "_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL"} {
		if protocol == "" {
			protocol, from = getenv(v), v
		}
	}
	switch protocol {
	case "grpc":
		s.protocol = "grpc"
	case "", "http", "http/protobuf":
		s.protocol = "http/protobuf"
	default:
		return s, fmt.Errorf("%s %q: want grpc or http (http/protobuf)", from, protocol)
	}
	s.timeout, s.setTimeout = otlpTimeout, true
	for _, v := range []string{"OTEL_EXPORTER_OTLP_" + signal + "_TIMEOUT", "OTEL_EXPORTER_OTLP_TIMEOUT"} {
		if ms, err := strconv.Atoi(getenv(v)); err == nil && ms > 0 && s.setTimeout {
			s.timeout, s.setTimeout = time.Duration(ms)*time.Millisecond, false
		}
	}
	return s, nil
}

// signalURL returns the OTLP/HTTP URL of a signal under the base URL.
func (c *otlpConfig) signalURL(signal string) string {
	u, _ := url.Parse(c.endpoint) // checked by otlpOf
	u.Path = strings.TrimSuffix(u.Path, "/") + "/v1/" + signal
	return u.String()
}

// metricExporter returns the OTLP metric exporter of the protocol.
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
		opts = append(opts, otlpmetrichttp.WithEndpointURL(c.signalURL("metrics")))
	}
	if s.setTimeout {
		opts = append(opts, otlpmetrichttp.WithTimeout(s.timeout))
	}
	return otlpmetrichttp.New(ctx, opts...)
}

// spanExporter returns the OTLP span exporter of the protocol.
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
		opts = append(opts, otlptracehttp.WithEndpointURL(c.signalURL("traces")))
	}
	if s.setTimeout {
		opts = append(opts, otlptracehttp.WithTimeout(s.timeout))
	}
	return otlptracehttp.New(ctx, opts...)
}

// An otlpPush is the gateway's MeterProvider with the OTelSink that
// records into it, and its TracerProvider with the Tracer that makes a
// span of each call and carries its trace to the upstream (traceparent).
type otlpPush struct {
	c      *otlpConfig
	mp     *sdkmetric.MeterProvider
	sink   *live.OTelSink // nil: no metrics pushed
	tp     *sdktrace.TracerProvider
	tracer *live.Tracer // nil: no spans pushed
	warn   *exportWarnings
}

// startOTLP starts the push c describes.
func startOTLP(ctx context.Context, c *otlpConfig) (*otlpPush, error) {
	p := &otlpPush{c: c, warn: &exportWarnings{}}
	res, err := resource.New(ctx,
		resource.WithAttributes(semconv.ServiceName("llmmetrics-gateway")), // OTEL_SERVICE_NAME overrides it
		resource.WithFromEnv(), resource.WithTelemetrySDK())
	if err != nil {
		p.warn.Handle(err) // a malformed OTEL_RESOURCE_ATTRIBUTES: the rest is kept
	}
	if c.traces.on {
		exp, err := c.spanExporter(ctx)
		if err != nil {
			return nil, fmt.Errorf("--otlp-endpoint: %w", err)
		}
		p.tp = sdktrace.NewTracerProvider(sdktrace.WithResource(res), sdktrace.WithBatcher(exp))
		p.tracer = live.NewTracer(p.tp, live.TraceOptions{})
	}
	if c.metrics.on {
		exp, err := c.metricExporter(ctx)
		if err != nil {
			p.stop()
			return nil, fmt.Errorf("--otlp-endpoint: %w", err)
		}
		var ropts []sdkmetric.PeriodicReaderOption
		if c.setInterval {
			ropts = append(ropts, sdkmetric.WithInterval(otlpInterval))
		}
		p.mp = sdkmetric.NewMeterProvider(sdkmetric.WithResource(res),
			sdkmetric.WithReader(sdkmetric.NewPeriodicReader(exp, ropts...)))
		if p.sink, err = live.NewOTelSink(live.Meter(p.mp), live.OTelOptions{}); err != nil {
			p.stop()
			return nil, err
		}
	}
	otel.SetErrorHandler(p.warn)
	return p, nil
}

// stop pushes what is left, the spans and the metrics at once, each
// within its exporter's timeout, and logs how many exports failed.
func (p *otlpPush) stop() {
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
	if n := p.warn.count(); n > 1 {
		log.Printf("gateway: warning: %d OTLP exports failed and were dropped in all", n)
	}
}

// exportWarnings logs the OpenTelemetry SDK's first error (a failed
// export) and counts them all: an otel.ErrorHandler.
type exportWarnings struct {
	mu sync.Mutex
	n  int
}

func (w *exportWarnings) Handle(err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.n == 0 {
		log.Printf("gateway: warning: an OTLP export failed and was dropped (the gateway goes on; further failures are counted): %v", err)
	}
	w.n++
}

func (w *exportWarnings) count() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.n
}
