package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/drive"
	"github.com/llmmetrics/llmmetrics/observe"
)

// runFlags are the flags of run.
type runFlags struct {
	url, model, api, prompts, body, scrape, out, timings, envFile, apiKeyEnv, warmup, method, percentiles, slo *string
	promptSalt                                                                                                 *string
	requests, concurrency, promptTokens, maxTokens                                                             *int
	duration, timeout, stall, grace                                                                            *time.Duration
	force, keepAlive                                                                                           *bool
	endpointNote                                                                                               string // set by target: the path appended to a base URL
	gate                                                                                                       gate   // --fail-if, --fail-below, as report has them
	promptLen, maxLen                                                                                          lengthSpec
	rate, burstiness, maxErrorRate                                                                             *float64
	seed                                                                                                       *uint64
	json                                                                                                       *bool
	headers, env                                                                                               list

	gpuTelemetry *bool
	gpuInterval  *time.Duration
	repeats      *int // --ttft-breakdown's and --search's

	breakdownFlags // --ttft-breakdown, --prompt-lengths, --settle (breakdown.go)
	searchFlags    // --search, --search-from, --search-max, --target (search.go)
	shardFlags     // --shard, --start-at (shard.go)
	replayFlags    // --replay…, --arrivals, --dry-run (replay.go)
	otlpFlags      // --otlp-endpoint, --otlp-protocol (otlp.go)
	sessionFlags   // --sessions, --turns, --think-time (sessions.go)
}

// list is a flag that may be given several times.
type list []string

func (l *list) String() string     { return strings.Join(*l, ", ") }
func (l *list) Set(v string) error { *l = append(*l, v); return nil }

func newRunFlags() (*flag.FlagSet, *runFlags) {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	f := &runFlags{}
	f.url = fs.String("url", "", "the endpoint's `URL`, e.g. http://127.0.0.1:8000/v1/chat/completions; a base URL (http://127.0.0.1:8000, …/v1) gets --api's endpoint path")
	f.model = fs.String("model", "", "the model `name` sent in each request")
	f.api = fs.String("api", "", "the endpoint's wire format: chat, completions, responses, ollama or tgi (default: from the URL's path)")
	f.requests = fs.Int("requests", 0, "measured requests to send (or --duration)")
	f.duration = fs.Duration("duration", 0, "how long to send measured requests (or --requests)")
	f.concurrency = fs.Int("concurrency", 0, "closed loop: requests in flight, exactly; with --rate: at most this many in flight (0: no cap)")
	f.rate = fs.Float64("rate", 0, "open loop: arrivals a `second`, Poisson unless --burstiness")
	f.burstiness = fs.Float64("burstiness", 1, "open loop: the gamma shape of the gaps between arrivals (1 Poisson, below 1 burstier)")
	f.seed = fs.Uint64("seed", 1, "seed of the plan: the arrivals, the lengths drawn and the prefix group each request draws")
	f.promptSalt = fs.String("prompt-salt", "", "the synthetic prompts' salt, 16 hex `digits` (the header's load gives it as prompt_salt): by default a random one of each run, so that no run finds another's prompts in the server's prefix cache; give a run's own to send its very prompts again (a warm cache, on purpose)")
	f.warmup = fs.String("warmup", "", "warm-up before the measured part: a count (20), a duration (30s) or auto (the specification's rule); with --sessions, a number of whole warm-up sessions of --turns turns, at most --sessions at once")
	fs.Var(&f.promptLen, "prompt-tokens", "synthetic prompts of about `N[±P%]` tokens as the server counts them (one or two preflight requests size them); N±P% draws each prompt's length at random, uniformly from N·(1−P/100) to N·(1+P/100), from --seed (512±25%: 384 to 640; +- for ± works too)")
	f.promptTokens = &f.promptLen.n
	f.prompts = fs.String("prompts", "", "a `file` of prompts, used in turn: text (one a line), JSONL of {\"prompt\": …, \"max_tokens\": N}, or ShareGPT-style conversations (each one's first human turn)")
	fs.Var(&f.maxLen, "max-tokens", "the output length asked of each request, `N[±P%]` tokens, sent as max_tokens (max_output_tokens, num_predict or max_new_tokens for --api responses, ollama or tgi); 0, the default, sends none and leaves the length to the server's own default, which differs between servers (OpenAI's completions stop at 16 tokens, llama.cpp's server goes on to the end of the text or of its context): give it for figures that compare (--ttft-breakdown asks 16 without it). N±P% draws each request's at random, uniformly from N·(1−P/100) to N·(1+P/100), from --seed (128±50%: 64 to 192; +- for ± works too); a --prompts JSONL line's own max_tokens comes first")
	f.maxTokens = &f.maxLen.n
	f.body = fs.String("body", "", "extra request fields as a JSON `object`, merged over the defaults, e.g. {\"ignore_eos\":true}; chat and completions ask for usage by default, {\"stream_options\":{\"include_usage\":false}} turns it off")
	fs.Var(&f.headers, "header", "an extra request header, `'Name: value'` (repeatable; values never appear in the output)")
	f.apiKeyEnv = fs.String("api-key-env", "OPENAI_API_KEY", "the environment `variable` holding an API key, sent as a bearer token when set")
	f.timeout = fs.Duration("timeout", drive.DefaultTimeout, "a deadline for each request, from its call to its stream's end; a request past it is a timeout (0: none)")
	f.stall = fs.Duration("stall", drive.DefaultStall, "a request whose server sends no byte for this `duration` is a timeout (0: none)")
	f.grace = fs.Duration("grace", 10*time.Second, "after an interrupt (SIGINT, SIGTERM, SIGHUP) or the end of --duration, how long requests in flight may finish; a second signal ends it at once")
	f.gate.define(fs)
	f.maxErrorRate = fs.Float64("max-error-rate", 0, "stop sending (as an interrupt does) once more than this `fraction` of at least 10 measured requests failed; exit status 4")
	f.keepAlive = fs.Bool("keep-alive", false, "reuse connections between requests (default: one a request, its setup kept out of TTFT); on a reused connection the body waits for the server's 100 Continue, and a request whose connection the server closed before that is sent again on a fresh one, measured from that send; any other failure is recorded, never re-sent. llama.cpp's server closes every connection after its streamed response, so against it nothing is reused")
	f.force = fs.Bool("force", false, "overwrite existing output files (--out, --timings, the scrape files)")
	f.scrape = fs.String("scrape", "", "the server's metrics `URL`: scraped as the measured part begins and ends, for the server report and the known-output check")
	f.out = fs.String("out", "", "write the JSONL records, after a header line describing the run, to `file`")
	f.timings = fs.String("timings", "", "write the server timings found in the streams (llama.cpp, Ollama, Groq) to `file`, for llmmetrics server --timings")
	fs.Var(&f.env, "env", "an environment fact for the run header, `key=value` (repeatable): GPU, driver, server version, precision…")
	f.envFile = fs.String("env-file", "", "a `file` of key=value lines for the run header's environment")
	f.method = fs.String("method", "nearest-rank", "percentile `method` of the report: nearest-rank or linear")
	f.percentiles = fs.String("percentiles", "50,90,95,99", "percentiles of the report")
	f.slo = fs.String("slo", "", "an SLO for the report's goodput, e.g. `ttft=500ms,tpot=50ms`")
	f.json = fs.Bool("json", false, "print the report as JSON ({\"client\": …, \"server\": …} with --scrape)")
	f.gpuTelemetry = fs.Bool("gpu-telemetry", false, "sample GPU utilisation, memory and power with nvidia-smi during the run, and summarize them per level (per prompt length with --ttft-breakdown)")
	f.gpuInterval = fs.Duration("gpu-interval", 200*time.Millisecond, "with --gpu-telemetry: the time between samples")
	f.repeats = fs.Int("repeats", 0, "with --ttft-breakdown: requests per prompt length (default 5); with --search: runs at each end of the bracket (default 3)")
	f.breakdownFlags.define(fs)
	f.searchFlags.define(fs)
	f.shardFlags.define(fs)
	f.replayFlags.define(fs)
	f.otlpFlags.define(fs)
	f.sessionFlags.define(fs)
	return fs, f
}

// inputs are the files a run reads, by flag, which no output may be.
func (f *runFlags) inputs() map[string]string {
	return map[string]string{"--prompts": *f.prompts, "--env-file": *f.envFile, "--replay": *f.replay}
}

// plan turns the flags into a drive plan and report options.
func (f *runFlags) plan(fs *flag.FlagSet) (drive.Plan, llmmetrics.Options, error) {
	var opt llmmetrics.Options
	p, err := f.target()
	if err != nil {
		return p, opt, err
	}
	p.Requests, p.Duration, p.Concurrency, p.Rate, p.Burstiness, p.Grace = *f.requests, *f.duration, *f.concurrency, *f.rate, *f.burstiness, *f.grace
	if p.Grace == 0 {
		p.Grace = time.Nanosecond // no grace: drive's zero is its default
	}
	switch w := *f.warmup; {
	case w == "":
	case w == "auto":
		p.Warmup.Auto = true
	default:
		if n, err := strconv.Atoi(w); err == nil && n >= 0 {
			p.Warmup.Requests = n
		} else if d, err := time.ParseDuration(w); err == nil && d > 0 {
			p.Warmup.Duration = d
		} else {
			return p, opt, fmt.Errorf("%w: --warmup %q: want a count, a duration or auto", errUsage, w)
		}
	}
	if err := f.applyReplay(&p); err != nil { // replay.go
		return p, opt, err
	}
	if err := f.applySessions(&p, fs); err != nil { // sessions.go
		return p, opt, err
	}
	if *f.maxErrorRate > 1 {
		return p, opt, valueError(fmt.Sprintf("--max-error-rate %g: want a fraction in (0, 1]", *f.maxErrorRate))
	}
	if f.maxLen.spread > 0 {
		p.MaxTokensEach = f.maxLen.draw(plannedCount(p), *f.seed, 11) // sessions.go
	}
	if !f.replaying() && (*f.promptTokens > 0) == (*f.prompts != "") {
		return p, opt, fmt.Errorf("%w: give --prompt-tokens or --prompts", errUsage)
	}
	if *f.prompts != "" {
		var each []int
		if p.Prompts, each, err = readPrompts(*f.prompts); err != nil {
			return p, opt, err
		}
		if each != nil {
			if f.maxLen.spread > 0 {
				return p, opt, fmt.Errorf("%w: --prompts %s gives each prompt its max_tokens: leave --max-tokens' spread out", errUsage, *f.prompts)
			}
			for i, m := range each {
				if m == 0 {
					each[i] = p.MaxTokens
				}
			}
			p.MaxTokensEach = each
		}
	}
	if err = opt.Method.UnmarshalText([]byte(*f.method)); err != nil {
		return p, opt, usageError("method", err)
	}
	if opt.Percentiles, err = llmmetrics.ParsePercentiles(*f.percentiles); err != nil {
		return p, opt, usageError("percentiles", err)
	}
	if *f.slo != "" {
		slo, err := llmmetrics.ParseSLO(*f.slo)
		if err != nil {
			return p, opt, usageError("slo", err)
		}
		opt.SLO = &slo
	}
	if err := f.gate.parse(&opt); err != nil {
		return p, opt, err
	}
	probe := p
	probe.Prompts = []string{"x"}
	if err := drive.Check(probe); err != nil { // a value the plan cannot take
		return p, opt, valueError(trimPrefix(err))
	}
	return p, opt, nil
}

// target turns the flags every run shares into a plan without a load:
// the endpoint, its API, the model, the request's fields and headers, the
// timeout and the seed.
func (f *runFlags) target() (drive.Plan, error) {
	var p drive.Plan
	if *f.url == "" {
		return p, fmt.Errorf("%w: run needs --url", errUsage)
	}
	u, err := url.Parse(*f.url)
	if err != nil {
		return p, badURL(*f.url)
	}
	api, known := observe.APIOf(u.Path)
	if *f.api != "" {
		if api, err = observe.ParseAPI(*f.api); err != nil {
			return p, usageError("api", err)
		}
	} else if !known {
		api = observe.Chat
	}
	target, note, err := endpoint(*f.url, api, *f.api != "")
	if err != nil {
		return p, err
	}
	f.endpointNote = note
	p = drive.Plan{URL: target, API: api, Model: *f.model, MaxTokens: *f.maxTokens, Seed: *f.seed, Timeout: orNone(*f.timeout), Stall: orNone(*f.stall), KeepAlive: *f.keepAlive, Header: http.Header{}}
	if p.PromptSalt, err = f.salt(); err != nil {
		return p, err
	}
	if *f.body != "" {
		if err := json.Unmarshal([]byte(*f.body), &p.Extra); err != nil {
			return p, usageError("body", fmt.Errorf("not a JSON object: %v", err))
		}
	}
	for _, h := range f.headers {
		k, v, ok := strings.Cut(h, ":")
		if !ok || strings.TrimSpace(k) == "" {
			return p, fmt.Errorf("%w: --header %q: want 'Name: value'", errUsage, k)
		}
		p.Header.Add(strings.TrimSpace(k), strings.TrimSpace(v))
	}
	if key := os.Getenv(*f.apiKeyEnv); key != "" && *f.apiKeyEnv != "" && p.Header.Get("Authorization") == "" {
		p.Header.Set("Authorization", "Bearer "+key)
	}
	return p, nil
}

// salt returns --prompt-salt, or a random salt of this run's own: the
// text of its synthetic prompts, which --seed (the plan) does not decide,
// so that a run repeated does not find its prompts in the server's
// prefix cache.
func (f *runFlags) salt() (uint64, error) {
	if *f.promptSalt == "" {
		return rand.Uint64(), nil
	}
	s, err := strconv.ParseUint(strings.TrimPrefix(*f.promptSalt, "0x"), 16, 64)
	if err != nil {
		return 0, fmt.Errorf("%w: --prompt-salt %q: want up to 16 hex digits, as a run header's prompt_salt gives them", errUsage, *f.promptSalt)
	}
	return s, nil
}

// syntheticPrompts sizes n prompts of --prompt-tokens, each drawn within
// its spread when it has one.
func (f *runFlags) syntheticPrompts(ctx context.Context, p drive.Plan, n int) ([]string, []*observe.Result, string, error) {
	if f.promptLen.spread == 0 {
		return drive.SyntheticPrompts(ctx, p, *f.promptTokens, n)
	}
	return drive.SizedPrompts(ctx, p, f.promptLen.draw(n, *f.seed, 13))
}

// orNone turns a limit flag's 0 (none) into drive's negative.
func orNone(d time.Duration) time.Duration {
	if d == 0 {
		return -1
	}
	return d
}
