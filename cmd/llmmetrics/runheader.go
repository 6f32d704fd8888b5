package main

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/cmd/llmmetrics/internal/gpu"
	"github.com/llmmetrics/llmmetrics/drive"
)

// header describes the run: the program, the target, the load, every flag
// (header values left out), the environment log and what the server says
// of itself.
func (f *runFlags) header(ctx context.Context, fs *flag.FlagSet, p drive.Plan, start time.Time, load map[string]string) *llmmetrics.RunHeader {
	h := f.headerOnly(fs, p, start, load)
	h.Server, _ = selfDescription(ctx, p) // a failed handshake fails the requests too, and says so
	return h
}

// headerOnly is header without what the server says of itself.
func (f *runFlags) headerOnly(fs *flag.FlagSet, p drive.Plan, start time.Time, load map[string]string) *llmmetrics.RunHeader {
	host, _ := os.Hostname()
	h := &llmmetrics.RunHeader{Tool: version(), ID: rand.Text(), GoVersion: runtime.Version(), Host: host, Target: p.URL, API: p.API.String(),
		Model: p.Model, Start: start, Flags: map[string]string{}, Env: map[string]string{}, Load: load}
	fs.Visit(func(fl *flag.Flag) {
		v := fl.Value.String()
		if fl.Name == "header" {
			var names []string
			for _, hv := range f.headers {
				k, _, _ := strings.Cut(hv, ":")
				names = append(names, strings.TrimSpace(k)+": …")
			}
			v = strings.Join(names, ", ")
		}
		h.Flags[fl.Name] = v
	})
	for k, v := range gpu.Facts(context.Background(), "") {
		h.Env[k] = v
	}
	if *f.envFile != "" {
		if kv, err := readEnvFile(*f.envFile); err == nil {
			for k, v := range kv {
				h.Env[k] = v
			}
		}
	}
	for _, e := range f.env {
		if k, v, ok := strings.Cut(e, "="); ok {
			h.Env[strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
	}
	return h
}

// promptSaltKey is the load's salt of the synthetic prompts' text
// (--prompt-salt): not the plan's, which --seed decides, so a plan and
// its run, and the runs of one plan, may differ in it.
const promptSaltKey = "prompt_salt"

// load describes a load run's load for its header.
func (f *runFlags) load(p drive.Plan) map[string]string {
	load := map[string]string{}
	if p.Rate > 0 {
		load["loop"] = "open"
		load["rate_per_s"] = fmt.Sprint(p.Rate)
		load["burstiness"] = fmt.Sprint(p.Burstiness)
		if p.Concurrency > 0 {
			load["max_in_flight"] = fmt.Sprint(p.Concurrency)
		}
	} else {
		load["loop"] = "closed"
		load["concurrency"] = fmt.Sprint(p.Concurrency)
	}
	if p.Requests > 0 {
		load["requests"] = fmt.Sprint(p.Requests)
	} else {
		load["duration"] = p.Duration.String()
	}
	load["max_tokens"] = f.maxTokensLoad(p)
	load["seed"] = fmt.Sprint(p.Seed) // the arrivals and the lengths it draws
	if *f.promptTokens > 0 {
		load["prompt_tokens"] = f.promptLen.String()
	}
	if *f.promptTokens > 0 || f.replaying() { // synthetic prompts: their text's salt
		load[promptSaltKey] = fmt.Sprintf("%016x", p.PromptSalt)
	}
	if *f.warmup != "" {
		load["warmup"] = *f.warmup
	}
	load["timeout"], load["stall"], load["grace"] = limit(p.Timeout, drive.DefaultTimeout), limit(p.Stall, drive.DefaultStall), p.Grace.String()
	if strings.HasPrefix(p.URL, "https://") {
		load["tls_handshake"] = p.TLSHandshake().String()
	}
	if f.endpointNote != "" { // the notes say it in full; the target is in the header
		load["endpoint"] = "appended to the base URL"
	}
	f.replayLoad(p, load) // replay.go
	sessionsLoad(p, load) // sessions.go
	return load
}

// maxTokensLoad states the output length asked for, for the header:
// --max-tokens as given, each --prompts line's own, or, for 0, that none
// is sent.
func (f *runFlags) maxTokensLoad(p drive.Plan) string {
	given := f.maxLen.String()
	if p.MaxTokens == 0 {
		given = "none sent (the server's default)"
	}
	if f.maxLen.spread == 0 && len(p.MaxTokensEach) > 0 {
		return "each --prompts line's max_tokens, else " + given
	}
	return given
}

// limit states a request limit for the header: its value, or none.
func limit(d, def time.Duration) string {
	switch {
	case d < 0:
		return "none"
	case d == 0:
		return def.String()
	}
	return d.String()
}

func readEnvFile(path string) (map[string]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if k, v, ok := strings.Cut(line, "="); ok {
			out[strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
	}
	return out, nil
}

// selfDescription asks the server what it is, at /version and /v1/models,
// keeping the JSON answers; 3 s for each answer, after the TLS handshake's
// own limit for an https:// URL. It stops at the first question that gets
// no answer. A TLS handshake that fails as against a server of plain HTTP
// is returned (a *drive.HandshakeError): every request of the run would
// fail the same way.
func selfDescription(ctx context.Context, p drive.Plan) (map[string]json.RawMessage, *drive.HandshakeError) {
	u, err := url.Parse(p.URL)
	if err != nil {
		return nil, nil
	}
	out := map[string]json.RawMessage{}
	client := drive.NewClient(p) // the requests' own handshake limit and its explanation
	client.Timeout = 3 * time.Second
	if u.Scheme == "https" {
		client.Timeout += p.TLSHandshake()
	}
	defer client.CloseIdleConnections()
	for _, path := range []string{"/version", "/v1/models"} {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.Scheme+"://"+u.Host+path, nil)
		if err != nil {
			continue
		}
		for k, vs := range p.Header {
			req.Header[k] = vs
		}
		resp, err := client.Do(req)
		var plain *drive.HandshakeError
		if errors.As(err, &plain) {
			return nil, plain
		}
		if err != nil {
			break // a server that did not answer one question will not answer the next sooner
		}
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK && json.Valid(b) {
			out[path] = b
		}
	}
	if len(out) == 0 {
		return nil, nil
	}
	return out, nil
}
