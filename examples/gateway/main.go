// Command gateway is an OpenAI-compatible reverse proxy that measures the
// traffic it forwards: it passes every /v1/... call on to the upstream
// model server through observe.Transport, which measures the calls of
// the endpoints it knows (chat completions, completions and responses;
// see observe.APIOf) and hands them to a live.Recorder; other calls
// (/v1/models, /v1/embeddings) are forwarded and not recorded. It serves
// the recorder's figures at /metrics under the OpenTelemetry GenAI
// semantic conventions' names.
//
//	go run ./examples/gateway --upstream http://127.0.0.1:8080 --listen 127.0.0.1:9090
//
// Point OpenAI clients at http://127.0.0.1:9090/v1 and Prometheus at
// http://127.0.0.1:9090/metrics. With --include-usage the gateway asks the
// upstream for usage on streams whose client did not (see
// observe.Transport.IncludeUsage), so that TPOT and token rates are known.
// With --slo ttft=1s,tpot=50ms (llmmetrics.ParseSLO's syntax) it judges
// every request against that SLO, for the goodput counters, which stay at
// 0 without one. With --models a,b the series of those models' chat calls
// exist at zero from the first scrape, under the label sets their
// requests get: failed, with no response model, and ok, with the response
// model the model's own name: start the server so that it answers with
// that name (llama-server -a NAME, vLLM --served-model-name NAME). The
// gateway logs, once, a declared model answered under another name.
//
// With --otlp-endpoint URL [--otlp-protocol grpc|http] (or the standard
// OTEL_EXPORTER_OTLP_* variables, with OTEL_SERVICE_NAME) it also pushes
// the same metrics to an OpenTelemetry collector, every 10 s and as it
// stops on a signal (otlp.go); a collector that cannot be reached is
// logged once and never slows the traffic.
//
// With --record FILE it writes every measured call to FILE in llmmetrics'
// own run format, without prompt text (record.go), and gives the file its
// end line as it stops: `llmmetrics run --replay FILE` sends the same
// arrivals and lengths to a candidate server, and `llmmetrics diff`
// compares the two (docs/run.md, "From production to a candidate server").
//
// It opens a connection per upstream call: llama.cpp's server closes
// every connection after its streamed response, and a POST sent on one it
// has just closed fails with an EOF that net/http does not retry.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/live"
	"github.com/llmmetrics/llmmetrics/observe"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

func main() {
	c, err := parseFlags(os.Args[1:], os.Stderr)
	switch {
	case errors.Is(err, flag.ErrHelp):
		return
	case err != nil:
		os.Exit(2) // parseFlags has said why
	}
	g, err := newGateway(c)
	if err != nil {
		log.Fatal(err)
	}
	log.Printf("gateway: %s → %s, metrics at /metrics", c.listen, c.upstream)
	srv := &http.Server{Addr: c.listen, Handler: g}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	drained := make(chan struct{})
	go func() {
		defer close(drained)
		<-ctx.Done()
		stop() // a second signal ends the gateway at once
		// The calls in flight get 10 s to end (their records are written),
		// then the last push and --record's end line.
		wait, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		srv.Shutdown(wait)
	}()
	if err := srv.ListenAndServe(); !errors.Is(err, http.ErrServerClosed) {
		g.Close()
		log.Fatal(err)
	}
	// ListenAndServe returns as Shutdown begins: wait for the calls in
	// flight before the records are closed.
	<-drained
	if err := g.Close(); err != nil {
		log.Fatal(err)
	}
}

// config is what the flags say.
type config struct {
	upstream, listen string
	models           []string
	includeUsage     bool
	slo              *llmmetrics.SLO
	otlp             *otlpConfig // nil: no push (otlp.go)
	record           recording   // record.go
}

// parseFlags parses the command's arguments, writing any error and the
// usage to out.
func parseFlags(args []string, out io.Writer) (config, error) {
	var c config
	fs := flag.NewFlagSet("gateway", flag.ContinueOnError)
	fs.SetOutput(out)
	fs.StringVar(&c.upstream, "upstream", "http://127.0.0.1:8080", "the model server's base URL, without /v1 (the clients' paths carry it)")
	fs.StringVar(&c.listen, "listen", "127.0.0.1:9090", "the address to serve on")
	models := fs.String("models", "", "comma-separated model names whose series exist from the start")
	fs.BoolVar(&c.includeUsage, "include-usage", false, "ask for usage on streams whose client did not")
	slo := fs.String("slo", "", "judge requests for goodput against limits such as ttft=1s,tpot=50ms")
	otlpEndpoint := fs.String("otlp-endpoint", "", "push the metrics to an OpenTelemetry collector at this base URL (http://127.0.0.1:4317 for grpc, :4318 for http); default OTEL_EXPORTER_OTLP_ENDPOINT")
	otlpProtocol := fs.String("otlp-protocol", "", "the OTLP protocol, grpc or http; default OTEL_EXPORTER_OTLP_PROTOCOL, else http")
	c.record.define(fs)
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	var err error
	if c.otlp, err = otlpOf(*otlpEndpoint, *otlpProtocol, os.Getenv); err != nil {
		fmt.Fprintln(out, err)
		return c, err
	}
	for _, m := range strings.Split(*models, ",") {
		if m = strings.TrimSpace(m); m != "" {
			c.models = append(c.models, m)
		}
	}
	if *slo != "" {
		s, err := llmmetrics.ParseSLO(*slo)
		if err != nil {
			err = fmt.Errorf("--slo: %w", err)
			fmt.Fprintln(out, err)
			return c, err
		}
		c.slo = &s
	}
	return c, nil
}

// gateway forwards /v1/ to the upstream, recording each call, and serves
// /metrics.
type gateway struct {
	http.Handler
	rec    *live.Recorder
	reg    *prometheus.Registry
	push   *otlpPush   // nil without one
	record *recordFile // --record's, or nil
}

// Close ends the gateway's OTLP push, pushing what is left, and closes
// the --record file with its end line.
func (g *gateway) Close() error {
	if g.push != nil {
		g.push.stop()
	}
	if g.record == nil {
		return nil
	}
	if err := g.record.close(); err != nil {
		return err
	}
	log.Printf("gateway: %s written", g.record.path)
	return nil
}

func newGateway(c config) (*gateway, error) {
	target, err := url.Parse(c.upstream)
	if err != nil {
		return nil, err
	}
	if p := strings.TrimSuffix(target.Path, "/"); strings.HasSuffix(p, "/v1") {
		// The clients' paths begin with /v1 already: /v1/v1/... is a 404.
		base := *target
		base.Path = strings.TrimSuffix(p, "/v1")
		return nil, fmt.Errorf("--upstream %s: give the server's base URL without /v1 (%s): the clients' paths carry it", c.upstream, base.String())
	}
	start := time.Now() // the records' epoch
	record, err := openRecord(c, start)
	if err != nil {
		return nil, err
	}
	var sinks []live.Sink
	if record != nil {
		sinks = append(sinks, record.sink)
	}
	var push *otlpPush
	if c.otlp != nil {
		if push, err = startOTLP(context.Background(), c.otlp); err != nil {
			return nil, err
		}
		if push.sink != nil {
			sinks = append(sinks, push.sink)
		}
	}
	rec, err := live.NewRecorder(live.Options{SLO: c.slo, Sinks: sinks})
	if err != nil {
		return nil, err
	}
	reg := prometheus.NewRegistry()
	if err := reg.Register(live.NewCollector(rec)); err != nil {
		return nil, err
	}
	// A connection per call: llama.cpp's server (cpp-httplib) closes
	// every connection after its streamed response, and a POST sent on one
	// it has just closed fails with EOF, which net/http does not retry.
	base := http.DefaultTransport.(*http.Transport).Clone()
	base.DisableKeepAlives = true
	transport := rec.Transport(base)
	transport.IncludeUsage = c.includeUsage
	if push != nil && push.tracer != nil {
		transport.Tracer = push.tracer
	}
	transport.Epoch = start
	if len(c.models) > 0 {
		record := transport.OnResultContext
		var once sync.Map // declared model → reported
		transport.OnResultContext = func(ctx context.Context, r *observe.Result) {
			if r.ResponseModel != "" && r.ResponseModel != r.RequestModel && slices.Contains(c.models, r.RequestModel) {
				if _, told := once.LoadOrStore(r.RequestModel, true); !told {
					log.Printf("gateway: model %q is answered as %q: its declared series stay at zero (start the server so that it answers with the name, e.g. llama-server -a %s)", r.RequestModel, r.ResponseModel, r.RequestModel)
				}
			}
			record(ctx, r)
		}
	}
	proxy := &httputil.ReverseProxy{
		Rewrite:       func(r *httputil.ProxyRequest) { r.SetURL(target) },
		Transport:     transport,
		FlushInterval: -1, // pass each event on as it arrives
	}
	mux := http.NewServeMux()
	mux.Handle("/v1/", proxy)
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	for _, m := range c.models {
		rec.Declare(chatKeys(target, m)...)
	}
	return &gateway{Handler: mux, rec: rec, reg: reg, push: push, record: record}, nil
}

// chatKeys returns the label sets the chat calls of model get at the
// upstream, as live.KeyOf gives them: a failure's, with no response
// model, and a success's, with the response model the model's own name.
func chatKeys(upstream *url.URL, model string) []live.Key {
	port, err := strconv.Atoi(upstream.Port())
	if err != nil {
		port = 80
		if upstream.Scheme == "https" {
			port = 443
		}
	}
	failed := live.Key{Operation: "chat", Provider: "openai", Model: model, Endpoint: upstream.Hostname(), Port: port}
	ok := failed
	ok.ResponseModel = model
	return []live.Key{failed, ok}
}
