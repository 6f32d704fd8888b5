package main

import (
	"encoding/hex"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	coltrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// spanReceiver is an OTLP/HTTP endpoint that keeps the spans it is sent
// and takes the metrics.
type spanReceiver struct {
	mu    sync.Mutex
	spans []*tracepb.Span
}

func (s *spanReceiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	if r.URL.Path == "/v1/traces" {
		req := &coltrace.ExportTraceServiceRequest{}
		if err := proto.Unmarshal(b, req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		s.mu.Lock()
		for _, rs := range req.ResourceSpans {
			for _, ss := range rs.ScopeSpans {
				s.spans = append(s.spans, ss.Spans...)
			}
		}
		s.mu.Unlock()
	}
	w.Header().Set("Content-Type", "application/x-protobuf")
}

// Each call through the gateway has its span, pushed when the gateway
// closes, and the upstream's request carries that span's trace: the
// traceparent the upstream received names the span's trace and the span
// as its parent.
func TestOTLPTraceparent(t *testing.T) {
	up := fakeUpstream()
	defer up.Close()
	var mu sync.Mutex
	var parents []string
	traced := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		parents = append(parents, r.Header.Get("Traceparent"))
		mu.Unlock()
		r.URL.Scheme, r.URL.Host = "http", strings.TrimPrefix(up.URL, "http://")
		r.RequestURI = ""
		resp, err := http.DefaultTransport.RoundTrip(r)
		require.NoError(t, err)
		defer resp.Body.Close()
		w.Header().Set("Content-Type", resp.Header.Get("Content-Type"))
		w.WriteHeader(resp.StatusCode)
		io.Copy(w, resp.Body)
	}))
	defer traced.Close()
	var rcv spanReceiver
	col := httptest.NewServer(&rcv)
	defer col.Close()
	otlp, err := otlpOf(col.URL, "http", func(string) string { return "" })
	require.NoError(t, err)
	g, err := newGateway(config{upstream: traced.URL, otlp: otlp})
	require.NoError(t, err)
	gw := httptest.NewServer(g)
	for range 3 {
		assert.Equal(t, http.StatusOK, call(t, gw.URL, "tiny", true))
	}
	gw.Close()
	g.Close()

	rcv.mu.Lock()
	defer rcv.mu.Unlock()
	require.Len(t, rcv.spans, 3)
	require.Len(t, parents, 3)
	for _, sp := range rcv.spans {
		assert.Equal(t, "chat tiny", sp.Name)
		// version-traceid-parentid-flags
		want := "00-" + hex.EncodeToString(sp.TraceId) + "-" + hex.EncodeToString(sp.SpanId) + "-01"
		assert.Contains(t, parents, want)
	}
}

// A collector that refuses the connection never fails a call: its
// exports are dropped, the first said once in the log.
func TestOTLPRefused(t *testing.T) {
	up := fakeUpstream()
	defer up.Close()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	closed := "http://" + l.Addr().String()
	l.Close()
	var logs lockedBuffer
	log.SetOutput(&logs)
	defer log.SetOutput(os.Stderr)
	for _, protocol := range []string{"grpc", "http"} {
		otlp, err := otlpOf(closed, protocol, func(string) string { return "" })
		require.NoError(t, err)
		g, err := newGateway(config{upstream: up.URL, otlp: otlp})
		require.NoError(t, err)
		gw := httptest.NewServer(g)
		for range 3 {
			assert.Equal(t, http.StatusOK, call(t, gw.URL, "tiny", true))
		}
		gw.Close()
		g.Close()
	}
	out := logs.tail(1 << 20)
	assert.Equal(t, 2, strings.Count(out, "an OTLP export failed and was dropped"), out)
	assert.Contains(t, out, "connection refused")
}
