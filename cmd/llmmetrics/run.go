package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/cmd/llmmetrics/internal/gpu"
	"github.com/llmmetrics/llmmetrics/drive"
	"github.com/llmmetrics/llmmetrics/observe"
	"github.com/llmmetrics/llmmetrics/server"
)

var runCommand = &command{
	name: "run",
	synopsis: "llmmetrics run --url URL --model M [--api chat|completions|responses|ollama|tgi] (--requests N | --duration D)\n" +
		"                 (--concurrency C | --rate R [--burstiness B] [--concurrency CAP]) [--warmup N|D|auto]\n" +
		"                 (--prompt-tokens N[±P%] | --prompts FILE) [--max-tokens N[±P%]] [--body JSON] [--header 'Name: value']\n" +
		"                 [--timeout 10m] [--stall 2m] [--grace 10s] [--max-error-rate F] [--fail-if COND] [--fail-below F]\n" +
		"                 [--scrape URL/metrics] [--out FILE [--force]] [--timings FILE] [--env k=v] [--env-file FILE] [--gpu-telemetry] [--json]\n" +
		"  llmmetrics run --search concurrency|rate --slo ttft=500ms,... [--target 0.9] [--search-from 1] [--search-max 1024]\n" +
		"                 [--repeats 3] --url URL --model M (--requests N | --duration D) (--prompt-tokens N | --prompts FILE) ...\n" +
		"  llmmetrics run --ttft-breakdown --url URL --model M [--prompt-lengths 128,512,2048] [--repeats 5] [--settle 500ms]\n" +
		"                 [--max-tokens 16] [--gpu-telemetry] [--out FILE] [--timings FILE] [--json]",
	about: "Run takes the measurement: it sends streaming requests to an OpenAI-compatible (or Ollama, or TGI)\n" +
		"endpoint and records each with the specification's client rules: the send stamped when the request\n" +
		"was written, never when it was queued; the first and last text-bearing chunk (role-only chunks, usage\n" +
		"frames and [DONE] are not text); n from the server's usage, never a chunk count. A closed loop keeps\n" +
		"exactly C requests in flight (after a failure its slot waits, 10 ms doubling to 1 s); an open loop\n" +
		"draws Poisson (or gamma, --burstiness) arrivals and keeps each request's scheduled time: its report\n" +
		"gives the achieved rate beside the offered one and TTFT and E2E also from the scheduled time\n" +
		"(coordinated omission corrected: the rows 'from sched.', gated as ttft_from_scheduled and\n" +
		"e2e_from_scheduled), with a WARNING when the sends fell behind their schedule or the server behind\n" +
		"the sends, and a count of the requests due before a --duration's deadline but never sent. Any\n" +
		"loop gets a WARNING when the server stopped answering mid-run; report prints the same check from\n" +
		"the file, and a gate treats such a run as 'help report' says. The client's own waiting\n" +
		"is reported apart, never inside TTFT. Warm-up requests are written and marked, and left out of the\n" +
		"report. With --scrape, the server's /metrics is scraped as the measured part begins and ends, and the\n" +
		"server side is reported with the known-output check.\n\n" +
		"Before the first request: every output is checked (distinct from each other and from the inputs, an\n" +
		"existing one kept without --force, each writable); --url needs http:// or https:// and a base URL gets\n" +
		"--api's endpoint path, said in the header (a mistake in either is one line, status 2); a test request\n" +
		"(the first prompt, max_tokens 1), or with --prompt-tokens the sizing requests (one word, then the salt\n" +
		"alone: each prompt gets the whole words whose count comes nearest N), stops the run with the server's\n" +
		"status and words when it fails (status 1). They are written to the file, marked preflight, on the\n" +
		"run's clock. No request is ever retried: each attempt is one record. Every request has --timeout and\n" +
		"--stall (no byte for that long), both in the header, and 5 s (or --stall, if shorter) for a TLS\n" +
		"handshake: an https:// URL to a server of plain HTTP fails as the server is asked what it is, before\n" +
		"the test request, saying so; --duration stops sending at its end and gives requests in flight --grace.\n\n" +
		"--out gets a header line describing the run, each record as its request ends, and an end line saying\n" +
		"whether the run completed or was interrupted (by what), how many requests were planned (the test or\n" +
		"sizing requests and the warm-up included; none for a --duration) and how many records were written;\n" +
		"report prints an interrupted or truncated file in capitals at the top, and the run's notes (how the\n" +
		"prompts were sized, how the warm-up ended), kept in the end line. SIGINT, SIGTERM and SIGHUP stop\n" +
		"sending, give requests in flight --grace, record the rest as cancelled and write everything; a second\n" +
		"signal ends the grace at once. Before the load begins (the test or sizing requests), a signal cancels\n" +
		"the request in flight at once and the run exits with status 5: nothing was measured. The report\n" +
		"follows on standard output with an error set (failures by HTTP status and by message, a failed\n" +
		"preflight request marked so); status 4 when every measured request failed or --max-error-rate stopped\n" +
		"the run (before any gate), 3 when --fail-if or --fail-below (as report has them) finds the run\n" +
		"crossing a condition, 1 when a condition's figure is absent (it cannot be judged).\n" +
		"An API key is read from the environment variable --api-key-env names, never a flag. With\n" +
		"--gpu-telemetry, nvidia-smi samples GPU utilisation, memory and power, summarized over the measured\n" +
		"part. docs/run.md has the whole story.\n\n" +
		"--search concurrency (or rate) looks for the capacity: the highest level at which --target of the\n" +
		"requests meet --slo (DistServe's framing). Each probe is one run of the plan; the level doubles from\n" +
		"--search-from until a probe misses the target, then is bisected until the bracket is within 5% (or\n" +
		"adjacent concurrencies) or 12 probes have run; each end of the bracket is then run until it has\n" +
		"--repeats runs, and the bracket is read from their median attainment. With --out, each probe's\n" +
		"records go to their own file, named by level, for llmmetrics sweep, and the sizing or test requests\n" +
		"to OUT-preflight.jsonl.\n\n" +
		"--ttft-breakdown runs the specification's TTFT breakdown instead of a load: for each prompt length,\n" +
		"from the shortest, --repeats cold requests one at a time, --settle apart. Two preflight requests size\n" +
		"the prompts as the server counts tokens; two more ask whether the server honours vLLM's cache_salt field\n" +
		"(used when the server accepts it and reports no cached tokens for a repeated prompt under a new salt;\n" +
		"otherwise each prompt begins with random text), and the report says which and why. Each request's\n" +
		"client TTFT is decomposed with the timings the server sent in the stream (vLLM's per-request metrics,\n" +
		"llama.cpp's timings, Ollama's durations): queue, prefill, residual and client overhead, each unknown\n" +
		"where the server did not report it; per length, every row and a summary (mean, p50, p95, p99, min,\n" +
		"max). The first request that fails (out of memory, say) is recorded, and every later one is skipped\n" +
		"and counted with the reason. With --gpu-telemetry the samples are summarized per length.",
	examples: []string{
		"llmmetrics run --url http://127.0.0.1:8000/v1/chat/completions --model m --requests 200 --concurrency 8 --prompt-tokens 512 --max-tokens 128 --out run.jsonl",
		"llmmetrics run --url http://127.0.0.1:8000/v1/completions --model m --duration 2m --rate 4 --burstiness 0.5 --warmup auto --prompts prompts.txt --max-tokens 256",
		"llmmetrics run --url http://127.0.0.1:8000 --model m --requests 500 --concurrency 16 --prompt-tokens 512 --max-tokens 128 --timeout 2m --stall 30s --max-error-rate 0.2 --slo ttft=500ms --fail-below 0.9 --out run.jsonl --force",
		"llmmetrics run --url http://127.0.0.1:8080/v1/chat/completions --model tiny --requests 50 --concurrency 2 --prompt-tokens 64 --max-tokens 32 --scrape http://127.0.0.1:8080/metrics --body '{\"ignore_eos\":true}'",
		"llmmetrics run --search concurrency --slo ttft=500ms,tpot=50ms --target 0.9 --url http://127.0.0.1:8000/v1/chat/completions --model m --requests 200 --prompt-tokens 512 --max-tokens 128 --out probe.jsonl",
		"llmmetrics run --ttft-breakdown --url http://127.0.0.1:8000/v1/chat/completions --model m --prompt-lengths 128,512,2048 --repeats 5 --gpu-telemetry --out breakdown.jsonl",
	},
	flags: func() *flag.FlagSet { fs, _ := newRunFlags(); return fs },
}

// runFlags are the flags of run.
type runFlags struct {
	url, model, api, prompts, body, scrape, out, timings, envFile, apiKeyEnv, warmup, method, percentiles, slo *string
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

	ttftBreakdown, gpuTelemetry *bool
	promptLengths, search       *string
	repeats                     *int
	settle, gpuInterval         *time.Duration
	searchFrom, searchMax       *float64
	attainTarget                *float64

	shardFlags // --shard, --start-at (shard.go)
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
	f.seed = fs.Uint64("seed", 1, "seed of the arrival process and the synthetic prompts")
	f.warmup = fs.String("warmup", "", "warm-up before the measured part: a count (20), a duration (30s) or auto (the specification's rule)")
	fs.Var(&f.promptLen, "prompt-tokens", "synthetic prompts of about `N[±P%]` tokens as the server counts them (one or two preflight requests size them); N±P% draws each prompt's length at random, uniformly from N·(1−P/100) to N·(1+P/100), from --seed (512±25%: 384 to 640; +- for ± works too)")
	f.promptTokens = &f.promptLen.n
	f.prompts = fs.String("prompts", "", "a `file` of prompts, used in turn: text (one a line), JSONL of {\"prompt\": …, \"max_tokens\": N}, or ShareGPT-style conversations (each one's first human turn)")
	fs.Var(&f.maxLen, "max-tokens", "the output length asked of each request, `N[±P%]` tokens, sent as max_tokens (max_output_tokens, num_predict or max_new_tokens for --api responses, ollama or tgi); 0, the default, sends none and leaves the length to the server's own default, which differs between servers (OpenAI's completions stop at 16 tokens, llama.cpp's server goes on to the end of the text or of its context): give it for figures that compare (--ttft-breakdown asks 16 without it). N±P% draws each request's at random, uniformly from N·(1−P/100) to N·(1+P/100), from --seed (128±50%: 64 to 192; +- for ± works too); a --prompts JSONL line's own max_tokens comes first")
	f.maxTokens = &f.maxLen.n
	f.body = fs.String("body", "", "extra request fields as a JSON `object`, merged over the defaults, e.g. {\"ignore_eos\":true}")
	fs.Var(&f.headers, "header", "an extra request header, `'Name: value'` (repeatable; values never appear in the output)")
	f.apiKeyEnv = fs.String("api-key-env", "OPENAI_API_KEY", "the environment `variable` holding an API key, sent as a bearer token when set")
	f.timeout = fs.Duration("timeout", drive.DefaultTimeout, "a deadline for each request, from its call to its stream's end; a request past it is a timeout (0: none)")
	f.stall = fs.Duration("stall", drive.DefaultStall, "a request whose server sends no byte for this `duration` is a timeout (0: none)")
	f.grace = fs.Duration("grace", 10*time.Second, "after an interrupt (SIGINT, SIGTERM, SIGHUP) or the end of --duration, how long requests in flight may finish; a second signal ends it at once")
	f.gate.define(fs)
	f.maxErrorRate = fs.Float64("max-error-rate", 0, "stop sending (as an interrupt does) once more than this `fraction` of at least 10 measured requests failed; exit status 4")
	f.keepAlive = fs.Bool("keep-alive", false, "reuse connections between requests (default: one a request, its setup kept out of TTFT); a request on a connection the server closed is then a failure, never re-sent")
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
	f.ttftBreakdown = fs.Bool("ttft-breakdown", false, "the specification's TTFT breakdown: cold requests one at a time per prompt length, each TTFT decomposed with the server's timings")
	f.promptLengths = fs.String("prompt-lengths", "128,512,2048", "with --ttft-breakdown: the prompt `lengths` in tokens, as the server counts them")
	f.repeats = fs.Int("repeats", 0, "with --ttft-breakdown: requests per prompt length (default 5); with --search: runs at each end of the bracket (default 3)")
	f.search = fs.String("search", "", "search for the capacity: the highest `concurrency` (or rate) at which --target of the requests meet --slo; each probe is a run of --requests or --duration")
	f.searchFrom = fs.Float64("search-from", 1, "with --search: the first level probed")
	f.searchMax = fs.Float64("search-max", 1024, "with --search: the highest level probed")
	f.attainTarget = fs.Float64("target", 0.9, "with --search: the attainment `fraction` the capacity must meet")
	f.settle = fs.Duration("settle", 500*time.Millisecond, "with --ttft-breakdown: the pause before each request")
	f.shardFlags.define(fs)
	return fs, f
}

func runLoad(args []string, _ io.Reader, stdout io.Writer) error {
	fs, f := newRunFlags()
	files, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(files) > 0 {
		return fmt.Errorf("%w: run takes no file arguments", errUsage)
	}
	var breakdownOnly, searchOnly []string
	fs.Visit(func(fl *flag.Flag) {
		switch fl.Name {
		case "prompt-lengths", "settle":
			breakdownOnly = append(breakdownOnly, "--"+fl.Name)
		case "search-from", "search-max", "target":
			searchOnly = append(searchOnly, "--"+fl.Name)
		}
	})
	switch {
	case (*f.ttftBreakdown || *f.search != "") && (flagSet(fs, "shard") || flagSet(fs, "start-at")): // shard.go
		return fmt.Errorf("%w: --shard and --start-at belong to a plain run, not to --search or --ttft-breakdown", errUsage)
	case *f.ttftBreakdown && *f.search != "":
		return fmt.Errorf("%w: --ttft-breakdown and --search are two different runs", errUsage)
	case *f.ttftBreakdown:
		if len(searchOnly) > 0 {
			return fmt.Errorf("%w: %s belong to --search", errUsage, strings.Join(searchOnly, ", "))
		}
		// The outputs are written at the end: checked and opened now.
		w, _, err := outputs{out: *f.out, timings: *f.timings}.check(f.inputs(), *f.force)
		if err != nil {
			return err
		}
		w.finishEmpty()
		return runBreakdown(fs, f, stdout)
	case len(breakdownOnly) > 0:
		return fmt.Errorf("%w: %s belong to --ttft-breakdown", errUsage, strings.Join(breakdownOnly, ", "))
	case *f.search != "":
		switch {
		case !flagSet(fs, "repeats"):
			*f.repeats = 3
		case *f.repeats < 1:
			return valueError(fmt.Sprintf("--repeats %d: --search needs at least one run at each end of the bracket", *f.repeats))
		}
		return runSearch(fs, f, stdout)
	case len(searchOnly) > 0:
		return fmt.Errorf("%w: %s belong to --search", errUsage, strings.Join(searchOnly, ", "))
	case flagSet(fs, "repeats"):
		return fmt.Errorf("%w: --repeats belongs to --search or --ttft-breakdown", errUsage)
	}
	p, opt, err := f.plan(fs)
	if err != nil {
		return err
	}
	sh, err := f.shardFlags.apply(fs, &p) // shard.go
	if err != nil {
		return err
	}
	if sh.empty {
		return f.runEmpty(fs, p, sh, stdout) // shard.go
	}
	rw, proms, err := f.runOutputs().check(f.inputs(), *f.force)
	if err != nil {
		return err
	}
	for _, pf := range proms {
		defer pf.Close()
	}
	in := catchInterrupts(os.Stderr, beforeLoadNote)
	defer in.release()
	ctx := in.ctx
	add := func(res *observe.Result) { sh.record(res); rw.add(res) }
	p.Abort, p.Epoch, p.OnResult = in.abort, time.Now(), add
	var brake *errorBrake
	if *f.maxErrorRate > 0 {
		brake = &errorBrake{rate: *f.maxErrorRate, stop: in.Stop}
		p.OnResult = func(res *observe.Result) { add(res); brake.add(res) }
	}

	var notes []string
	if f.endpointNote != "" {
		notes = append(notes, f.endpointNote+".")
	}
	header := f.headerOnly(fs, p, p.Epoch, f.load(p))
	var plainErr *drive.HandshakeError // the server's self-description found it speaks plain HTTP
	header.Server, plainErr = selfDescription(ctx, p)
	sh.describe(header.Load) // shard.go
	if len(proms) == 2 {
		header.Load["scrape_before"], header.Load["scrape_after"] = filepath.Base(proms[0].Name()), filepath.Base(proms[1].Name())
	}
	if err := rw.header(header); err != nil {
		rw.finish(&llmmetrics.RunEnd{State: "interrupted"})
		return err // nothing was sent
	}
	// stopped ends the file when the run cannot go on before it began.
	stopped := func(by string, err error) error {
		end := &llmmetrics.RunEnd{State: "interrupted", By: by, Notes: notes}
		planRequests(end, p, len(rw.all()), nil)
		if signal := in.By(); signal != "" {
			// The request failed because the run was interrupted: a
			// signal, not a failure, and nothing of the load was sent.
			end.By = signal
			return errors.Join(fmt.Errorf("interrupted by %s %w", signal, errNotBegun), rw.finish(end))
		}
		werr := rw.finish(end)
		return errors.Join(err, werr)
	}
	if plainErr != nil {
		// Asking the server what it is failed as against a server of
		// plain HTTP: so would the test request, after the same wait.
		plain, _ := url.Parse(p.URL)
		plain.Scheme = "http"
		why := fmt.Sprintf("asking the server what it is (GET /version): %s; try %s", plainErr.Reason, plain)
		notes = append(notes, "The run stopped before its test request: "+why+".")
		return stopped("a failed TLS handshake", errors.New(why))
	}
	var sampler *gpu.Sampler
	if *f.gpuTelemetry {
		if sampler, err = gpu.Start(ctx, gpu.Options{Interval: *f.gpuInterval}); err != nil {
			return stopped("a failed --gpu-telemetry", fmt.Errorf("--gpu-telemetry: %w", err))
		}
	}
	if *f.promptTokens > 0 {
		n := 1000
		if p.Requests > 0 {
			n = p.Requests + p.Warmup.Requests
		}
		var note string
		if p.Prompts, _, note, err = f.syntheticPrompts(ctx, p, n); err != nil {
			var short *drive.TooShortError
			if errors.As(err, &short) {
				// The sizing requests were answered: the size asked is
				// below the template's own.
				notes = append(notes, "The run stopped after sizing its prompts: "+strings.TrimPrefix(err.Error(), "drive: ")+".")
				return stopped("--prompt-tokens below the smallest prompt", err)
			}
			return stopped("a failed sizing request", err)
		}
		notes = append(notes, note+".")
	} else if _, err := drive.TestRequest(ctx, p); err != nil {
		return stopped("a failed test request", err)
	}
	var before, after *server.Scrape
	var rawBefore, rawAfter []byte
	var scrapeErr error
	if *f.scrape != "" {
		p.OnMeasure = func(begin bool) {
			s, raw, err := scrape(*f.scrape)
			if err != nil && scrapeErr == nil {
				scrapeErr = err
			}
			if begin {
				before, rawBefore = s, raw
			} else {
				after, rawAfter = s, raw
			}
		}
	}
	if isTerminal(os.Stderr) {
		p.Progress = func(pr drive.Progress) {
			fmt.Fprintf(os.Stderr, "\r%s", progressLine(pr))
		}
	}
	if err := sh.wait(ctx); err != nil { // shard.go
		return stopped("a signal before --start-at", err)
	}
	preflight := len(rw.all()) // the test or sizing requests
	in.Then(graceNote(p.Grace))
	out, err := drive.Run(ctx, p)
	if p.Progress != nil {
		fmt.Fprintln(os.Stderr)
	}
	var tele *telemetry
	if sampler != nil {
		samples, serr := sampler.Stop()
		tele = &telemetry{Level: levelName(p), GPUs: gpu.Summarize(samples, out.MeasureStart, out.MeasureEnd)}
		if serr != nil {
			tele.Note = serr.Error()
		}
	}
	if err != nil {
		return stopped("an error", err)
	}
	end := &llmmetrics.RunEnd{State: "completed"}
	planRequests(end, p, preflight, out)
	if by := in.By(); by != "" {
		end.State, end.By = "interrupted", by
	}
	if out.Warmup != "" {
		notes = append(notes, "Warm-up: "+out.Warmup+".")
	}
	if out.Interrupted {
		notes = append(notes, "The run was interrupted by "+end.By+": sending stopped, requests still in flight after the grace period were cancelled, and every request sent is recorded.")
	}
	end.Notes = notes // kept in the file, so that report says them too
	werr := writeScrapes(proms, rawBefore, rawAfter, out, end)
	noteUnsent(end, p, out) // runloop.go
	werr = errors.Join(werr, rw.finish(end))
	run := observe.Run(rw.all())
	run.Header, run.End = header, end // the summary takes the notes from the end line
	opt.Lenient = true                // the unknown-n requests are set aside and counted, never lost
	s, err := run.Summarize(opt)
	if err != nil {
		return errors.Join(err, werr)
	}
	var srv *server.Report
	if *f.scrape != "" {
		if srv, err = serverSide(before, after, scrapeErr, out, run.Records); err != nil {
			return errors.Join(err, werr)
		}
	}
	lc := checkLoad(loadFacts(header, end), run.Records, s, opt)
	if err := writeRunReport(stdout, s, srv, tele, newErrorSet(run.Records), lc, *f.json); err != nil {
		return err
	}
	if werr != nil {
		return werr
	}
	if by := in.By(); strings.HasPrefix(by, "--max-error-rate") {
		return fmt.Errorf("%w: stopped by %s", errTooManyFailures, by)
	}
	// Every request failing is the larger fact: it comes before a gate,
	// whose latency conditions could then only say that they cannot be
	// judged.
	if err := allFailed(s, in.By() != ""); err != nil {
		return err
	}
	return f.gate.check(s, lc)
}

// syntheticPrompts sizes n prompts of --prompt-tokens, each drawn within
// its spread when it has one.
func (f *runFlags) syntheticPrompts(ctx context.Context, p drive.Plan, n int) ([]string, []*observe.Result, string, error) {
	if f.promptLen.spread == 0 {
		return drive.SyntheticPrompts(ctx, p, *f.promptTokens, n)
	}
	return drive.SizedPrompts(ctx, p, f.promptLen.draw(n, *f.seed, 13))
}

// allFailed returns errAllFailed when every measured request failed and
// some failed of their own: an error, a timeout, or, in a run no signal
// interrupted, still unanswered when the grace ran out (cancelled by the
// run's own end, where an interrupted run's cancellations are its user's).
func allFailed(s *llmmetrics.Summary, interrupted bool) error {
	a := s.Requests
	if a.Failed == 0 || a.Failed != a.Offered-a.Warmup-a.Preflight || (a.Errors+a.Timeouts == 0 && interrupted) {
		return nil
	}
	cancelled := fmt.Sprintf("%d cancelled", a.Cancelled)
	if !interrupted && a.Cancelled > 0 {
		cancelled += " when the grace ran out"
	}
	return fmt.Errorf("%w: %d of %d (%d errors, %d timeouts, %s); the error set above says why", errAllFailed, a.Failed, a.Failed, a.Errors, a.Timeouts, cancelled)
}

// inputs are the files a run reads, by flag, which no output may be.
func (f *runFlags) inputs() map[string]string {
	return map[string]string{"--prompts": *f.prompts, "--env-file": *f.envFile}
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
	if *f.maxErrorRate > 1 {
		return p, opt, valueError(fmt.Sprintf("--max-error-rate %g: want a fraction in (0, 1]", *f.maxErrorRate))
	}
	if f.maxLen.spread > 0 {
		n := 1000
		if p.Requests > 0 {
			n = p.Requests + p.Warmup.Requests
		}
		p.MaxTokensEach = f.maxLen.draw(n, *f.seed, 11)
	}
	if (*f.promptTokens > 0) == (*f.prompts != "") {
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
	if opt.Method, err = llmmetrics.ParseMethod(*f.method); err != nil {
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
	if err := drive.Check(probe); err != nil {
		return p, opt, fmt.Errorf("%w: %s", errUsage, trimPrefix(err))
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
	h := &llmmetrics.RunHeader{Tool: version(), GoVersion: runtime.Version(), Host: host, Target: p.URL, API: p.API.String(),
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
	if *f.promptTokens > 0 {
		load["prompt_tokens"] = f.promptLen.String()
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

// orNone turns a limit flag's 0 (none) into drive's negative.
func orNone(d time.Duration) time.Duration {
	if d == 0 {
		return -1
	}
	return d
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

// writeRun writes the JSONL records after the header, and the timings.
func writeRun(outPath, timingsPath string, h *llmmetrics.RunHeader, results []*observe.Result) error {
	if outPath != "" {
		f, err := os.Create(outPath)
		if err != nil {
			return err
		}
		w := bufio.NewWriter(f)
		err = h.WriteLine(w)
		if err == nil {
			err = observe.WriteJSONL(w, results)
		}
		if err == nil {
			err = w.Flush()
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("%s: %w", outPath, err)
		}
	}
	if timingsPath != "" {
		f, err := os.Create(timingsPath)
		if err != nil {
			return err
		}
		_, err = observe.WriteTimings(f, results)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		return err
	}
	return nil
}

// scrape fetches and parses the server's metrics, keeping the raw text.
func scrape(u string) (*server.Scrape, []byte, error) {
	client := &http.Client{Timeout: 10 * time.Second}
	resp, err := client.Get(u)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, nil, fmt.Errorf("scraping %s: HTTP %d", u, resp.StatusCode)
	}
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 256<<20))
	if err != nil {
		return nil, nil, err
	}
	s, err := server.ParseScrape(bytes.NewReader(raw))
	return s, raw, err
}

// writeScrapes writes the two scrapes of the measured part into the files
// opened beside the records (out without .jsonl, then .before.prom and
// .after.prom), which the header names, and puts the time between them in
// the end line's load, so that sweep reports the server's figures of the
// run.
func writeScrapes(files []*os.File, before, after []byte, o *drive.Outcome, end *llmmetrics.RunEnd) error {
	if len(files) != 2 || before == nil || after == nil {
		return nil
	}
	for i, raw := range [][]byte{before, after} {
		if _, err := files[i].Write(raw); err != nil {
			return fmt.Errorf("writing %s: %w", files[i].Name(), err)
		}
	}
	end.Load = map[string]string{"scrape_elapsed": o.MeasureEnd.Sub(o.MeasureStart).String()}
	return nil
}

// serverSide builds the server report of the measured part, with the
// known-output check on the measured records.
func serverSide(before, after *server.Scrape, scrapeErr error, out *drive.Outcome, recs []llmmetrics.Record) (*server.Report, error) {
	if scrapeErr != nil {
		return nil, fmt.Errorf("--scrape: %w", scrapeErr)
	}
	if before == nil || after == nil {
		return nil, errors.New("--scrape: the measured part was not scraped at both ends")
	}
	w, err := server.Diff(before, after, out.MeasureEnd.Sub(out.MeasureStart), nil)
	if err != nil {
		return nil, err
	}
	rep := &server.Report{Window: w}
	if k, err := server.CheckKnownOutput(w, recs); err == nil {
		rep.Known = &k
	}
	return rep, nil
}

// telemetry is the GPU telemetry of a load run's measured part: one
// level.
type telemetry struct {
	Level string        `json:"level"`
	GPUs  []gpu.Summary `json:"gpus"`
	Note  string        `json:"note,omitempty"`
}

// levelName names a run's load level.
func levelName(p drive.Plan) string {
	if p.Rate > 0 {
		return fmt.Sprintf("open loop, %v requests/s", p.Rate)
	}
	return fmt.Sprintf("closed loop, concurrency %d", p.Concurrency)
}

// writeRunReport writes the client report, then the server side and the
// GPU telemetry where there are any; as JSON, the client report alone, or
// {"client": …, "server": …, "gpu": …} with the others.
func writeRunReport(w io.Writer, s *llmmetrics.Summary, srv *server.Report, tele *telemetry, errs *errorSet, lc *loadCheck, asJSON bool) error {
	if asJSON {
		b, err := s.MarshalJSON()
		if err != nil {
			return err
		}
		if lc != nil {
			if b, err = withField(b, "load_check", lc); err != nil {
				return err
			}
		}
		if errs != nil {
			if b, err = withField(b, "error_set", errs); err != nil {
				return err
			}
		}
		if srv != nil || tele != nil {
			obj := map[string]any{"client": json.RawMessage(b)}
			if srv != nil {
				obj["server"] = srv
			}
			if tele != nil {
				obj["gpu"] = tele
			}
			if b, err = json.Marshal(obj); err != nil {
				return err
			}
		}
		_, err = fmt.Fprintf(w, "%s\n", b)
		return err
	}
	fmt.Fprint(w, "llmmetrics run\n\n")
	if lc != nil {
		lc.writeWarnings(w)
	}
	if err := s.WriteTable(w); err != nil {
		return err
	}
	if lc != nil {
		lc.write(w)
	}
	errs.write(w)
	if srv != nil {
		fmt.Fprintln(w)
		if err := srv.WriteTable(w); err != nil {
			return err
		}
	}
	if tele != nil {
		fmt.Fprintf(w, "\nGPU telemetry over the measured part (%s):\n", tele.Level)
		if len(tele.GPUs) == 0 {
			fmt.Fprintln(w, "  no samples in the measured part")
		}
		for _, g := range tele.GPUs {
			fmt.Fprintf(w, "  %s\n", g)
		}
		if tele.Note != "" {
			fmt.Fprintf(w, "  %s\n", tele.Note)
		}
	}
	return nil
}

func progressLine(p drive.Progress) string {
	total := "?"
	if p.Total > 0 {
		total = fmt.Sprint(p.Total)
	}
	return fmt.Sprintf("%d/%s done, %d warm-up, %s elapsed, %d errors, p50 TTFT %v   ",
		p.Done, total, p.Warmup, p.Elapsed.Round(time.Second), p.Errors, p.TTFTp50.Round(time.Millisecond))
}

func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
