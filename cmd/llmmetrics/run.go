package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/cmd/llmmetrics/internal/gpu"
	"github.com/llmmetrics/llmmetrics/drive"
	"github.com/llmmetrics/llmmetrics/internal/genhealth"
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
		"                 [--arrivals onoff:on=2s,off=8s,rate=40 | --arrivals pareto:alpha=1.5,rate=20] [--dry-run]\n" +
		"  llmmetrics run --replay FILE [--replay-format auto|azure|mooncake|burstgpt|llmmetrics] [--speed X] [--replay-from D]\n" +
		"                 [--replay-to D] [--replay-rows N] [--scale-tokens F] [--cap-prompt-tokens N] [--cap-output-tokens N]\n" +
		"                 [--replay-stream] [--concurrency CAP] [--dry-run] --url URL --model M ...\n" +
		"  llmmetrics run --sessions S --turns T [--think-time D] [--warmup N] [--dry-run] --url URL --model M\n" +
		"                 (--prompt-tokens N | --prompts FILE) ...\n" +
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
		"signal ends the grace at once. Before the load begins (from the process's start: the planning, the\n" +
		"test or sizing requests), a signal cancels the request in flight at once and the run exits with\n" +
		"status 5: nothing was measured. The report follows on standard output with an error set (failures\n" +
		"by HTTP status and by message, a failed preflight request marked so); status 4 when nothing was\n" +
		"measured (no measured request ended ok: each failed, or was cancelled by a signal or when the grace\n" +
		"ran out, or none was sent) or\n" +
		"--max-error-rate stopped the run (before any gate), 3 when --fail-if or --fail-below (as report has\n" +
		"them) finds the run crossing a condition, 1 when a condition's figure is absent (it cannot be judged)\n" +
		"or a --search probe gives no verdict (its attainment a lower bound that may or may not meet --target).\n" +
		"An API key is read from the environment variable --api-key-env names, never a flag. With\n" +
		"--gpu-telemetry, nvidia-smi samples GPU utilisation, memory and power, summarized over the measured\n" +
		"part. --replay sends a trace's rows at their times with their lengths, --arrivals draws bursty arrivals, and\n" +
		"--dry-run writes the plan without sending anything ('report plan.jsonl' describes it). --sessions runs\n" +
		"multi-turn conversations; with it --warmup N is N whole warm-up sessions of the same turns (marked, left\n" +
		"out of the figures, at most S at once; a duration or auto is refused), and a dry run lists every turn,\n" +
		"a later turn with the answer it waits for and the think time, never a guessed time. docs/run.md has the\n" +
		"whole story.\n\n" +
		searchAbout + "\n\n" + breakdownAbout,
	examples: []string{
		"llmmetrics run --url http://127.0.0.1:8000/v1/chat/completions --model m --requests 200 --concurrency 8 --prompt-tokens 512 --max-tokens 128 --out run.jsonl",
		"llmmetrics run --url http://127.0.0.1:8000/v1/completions --model m --duration 2m --rate 4 --burstiness 0.5 --warmup auto --prompts prompts.txt --max-tokens 256",
		"llmmetrics run --url http://127.0.0.1:8000 --model m --requests 500 --concurrency 16 --prompt-tokens 512 --max-tokens 128 --timeout 2m --stall 30s --max-error-rate 0.2 --slo ttft=500ms --fail-below 0.9 --out run.jsonl --force",
		"llmmetrics run --url http://127.0.0.1:8080/v1/chat/completions --model tiny --requests 50 --concurrency 2 --prompt-tokens 64 --max-tokens 32 --scrape http://127.0.0.1:8080/metrics --body '{\"ignore_eos\":true}'",
		"llmmetrics run --search concurrency --slo ttft=500ms,tpot=50ms --target 0.9 --url http://127.0.0.1:8000/v1/chat/completions --model m --requests 200 --prompt-tokens 512 --max-tokens 128 --out probe.jsonl",
		"llmmetrics run --ttft-breakdown --url http://127.0.0.1:8000/v1/chat/completions --model m --prompt-lengths 128,512,2048 --repeats 5 --gpu-telemetry --out breakdown.jsonl",
		"llmmetrics run --replay AzureLLMInferenceTrace_conv.csv --replay-from 10m --replay-to 20m --speed 2 --cap-prompt-tokens 4096 --url http://127.0.0.1:8000 --model m --out replay.jsonl",
		"llmmetrics run --dry-run --arrivals onoff:on=2s,off=8s,rate=40 --requests 500 --prompt-tokens 512 --max-tokens 128 --out plan.jsonl",
		"llmmetrics run --sessions 8 --turns 4 --think-time 2s --warmup 8 --url http://127.0.0.1:8000 --model m --prompt-tokens 256 --max-tokens 128 --out sessions.jsonl",
	},
	flags: func() *flag.FlagSet { fs, _ := newRunFlags(); return fs },
}

// runLoad is run: a load run in the stages it goes through (plan, begin,
// send, finish, write), or a TTFT breakdown or a capacity search, each in
// its own file.
func runLoad(args []string, _ io.Reader, stdout io.Writer) error {
	fs, f := newRunFlags()
	files, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(files) > 0 {
		return fmt.Errorf("%w: run takes no file arguments", errUsage)
	}
	if err := f.checkModes(fs); err != nil {
		return err
	}
	if err := f.checkReplay(fs); err != nil { // replay.go
		return err
	} else if *f.dryRun {
		if err := earlySignal(); err != nil { // runio.go
			return err
		}
		return runDryRun(fs, f, stdout) // dryrun.go
	}
	otlp, err := f.otlpFlags.config(os.Getenv, "llmmetrics") // otlp.go
	if err != nil {
		return err
	}
	switch {
	case otlp != nil && *f.otlpEndpoint != "" && (*f.ttftBreakdown || *f.search != ""):
		return fmt.Errorf("%w: --otlp-endpoint belongs to a plain run, not to --search or --ttft-breakdown", errUsage)
	case *f.ttftBreakdown:
		return runBreakdown(fs, f, stdout) // breakdown.go
	case *f.search != "":
		return runSearch(fs, f, stdout) // search.go
	}
	r, err := planLoad(fs, f, stdout)
	if err != nil || r == nil { // nil: an empty shard, done (shard.go)
		return err
	}
	defer r.close()
	if otlp != nil {
		push, err := startOTLP(r.in.ctx, otlp, r.p.Model, r.p.Epoch, r.opt.SLO)
		if err != nil {
			return r.stopped("a failed --otlp-endpoint", err)
		}
		defer push.stop(otlpStderr) // the last push, also after a signal
		r.p.OnResult = push.onResult(r.p.OnResult)
	}
	if err := r.begin(); err != nil {
		return err
	}
	out, tele, err := r.send()
	if err != nil {
		return err
	}
	end, werr := r.finish(out)
	return r.write(stdout, out, end, tele, werr)
}

// checkModes refuses the flags of one kind of run (a load, --ttft-breakdown,
// --search) given to another.
func (f *runFlags) checkModes(fs *flag.FlagSet) error {
	var breakdownOnly, searchOnly []string
	fs.Visit(func(fl *flag.Flag) {
		switch fl.Name {
		case "prompt-lengths", "settle":
			breakdownOnly = append(breakdownOnly, "--"+fl.Name)
		case "search-from", "search-max", "target":
			searchOnly = append(searchOnly, "--"+fl.Name)
		}
	})
	breakdown, search := *f.ttftBreakdown, *f.search != ""
	switch {
	case (breakdown || search) && (flagSet(fs, "shard") || flagSet(fs, "shards") || flagSet(fs, "start-at")): // shard.go
		return fmt.Errorf("%w: --shard, --shards and --start-at belong to a plain run, not to --search or --ttft-breakdown", errUsage)
	case breakdown && search:
		return fmt.Errorf("%w: --ttft-breakdown and --search are two different runs", errUsage)
	case breakdown && len(searchOnly) > 0:
		return fmt.Errorf("%w: %s belong to --search", errUsage, strings.Join(searchOnly, ", "))
	case breakdown:
		return nil
	case len(breakdownOnly) > 0:
		return fmt.Errorf("%w: %s belong to --ttft-breakdown", errUsage, strings.Join(breakdownOnly, ", "))
	case search:
		return nil
	case len(searchOnly) > 0:
		return fmt.Errorf("%w: %s belong to --search", errUsage, strings.Join(searchOnly, ", "))
	case flagSet(fs, "repeats"):
		return fmt.Errorf("%w: --repeats belongs to --search or --ttft-breakdown", errUsage)
	}
	return nil
}

// loadRun is a load run from its plan to its report.
type loadRun struct {
	fs      *flag.FlagSet
	f       *runFlags
	p       drive.Plan
	opt     llmmetrics.Options
	sh      share         // shard.go
	rw      *recordWriter // runio.go
	proms   []*os.File    // the scrape files, opened beside the records
	in      *interrupts
	header  *llmmetrics.RunHeader
	notes   []string // the end line's
	sampler *gpu.Sampler
	scrapes scrapes
	// preflight counts the test or sizing requests.
	preflight int
	health    *llmmetrics.ClientHealth // the end line's, measured over the load
}

// planLoad is the plan stage: the flags turned into a plan, cut to the
// shard's share, its outputs checked and opened, and the interrupts
// caught. The caller closes the run. A shard whose share is empty is run
// here (it sends nothing and writes its files): planLoad then returns a
// nil run and runEmpty's error.
func planLoad(fs *flag.FlagSet, f *runFlags, stdout io.Writer) (*loadRun, error) {
	p, opt, err := f.plan(fs)
	if err != nil {
		return nil, err
	}
	sh, err := f.shardFlags.apply(fs, &p) // shard.go
	if err != nil {
		return nil, err
	}
	if sh.empty {
		return nil, f.runEmpty(fs, p, sh, stdout) // shard.go
	}
	rw, proms, err := f.runOutputs().check(f.inputs(), *f.force)
	if err != nil {
		return nil, err
	}
	r := &loadRun{fs: fs, f: f, opt: opt, sh: sh, rw: rw, proms: proms}
	r.in = catchInterrupts(os.Stderr, beforeLoadNote)
	add := func(res *observe.Result) { sh.record(res); rw.add(res) }
	p.Abort, p.Epoch, p.OnResult = r.in.abort, time.Now(), add
	if *f.maxErrorRate > 0 {
		brake := &errorBrake{rate: *f.maxErrorRate, stop: r.in.Stop}
		p.OnResult = func(res *observe.Result) { add(res); brake.add(res) }
	}
	r.p = p
	if f.endpointNote != "" {
		r.notes = append(r.notes, f.endpointNote+".")
	}
	r.notes = append(r.notes, f.replayNotes()...) // replay.go
	return r, nil
}

// close releases the interrupts and closes the scrape files.
func (r *loadRun) close() {
	r.in.release()
	for i := len(r.proms) - 1; i >= 0; i-- {
		r.proms[i].Close()
	}
}

// begin writes the header and does what comes before the load: the
// server is asked what it is, the GPU sampler started, and the prompts
// sized or the test request sent. It returns stopped's error when the run
// cannot go on.
func (r *loadRun) begin() error {
	f, p := r.f, r.p
	r.header = f.headerOnly(r.fs, p, p.Epoch, f.load(p))
	var plainErr *drive.HandshakeError // the server's self-description found it speaks plain HTTP
	r.header.Server, plainErr = selfDescription(r.in.ctx, p)
	r.sh.describe(r.header.Load) // shard.go
	if len(r.proms) == 2 {
		r.header.Load["scrape_before"], r.header.Load["scrape_after"] = filepath.Base(r.proms[0].Name()), filepath.Base(r.proms[1].Name())
	}
	if err := r.rw.header(r.header); err != nil {
		r.rw.finish(&llmmetrics.RunEnd{State: "interrupted"})
		r.rw.removeCreated()
		return err // nothing was sent
	}
	if plainErr != nil {
		// Asking the server what it is failed as against a server of
		// plain HTTP: so would the test request, after the same wait.
		plain, _ := url.Parse(p.URL)
		plain.Scheme = "http"
		why := fmt.Sprintf("asking the server what it is (GET /version): %s; try %s", plainErr.Reason, plain)
		r.notes = append(r.notes, "The run stopped before its test request: "+why+".")
		return r.stopped("a failed TLS handshake", errors.New(why))
	}
	if *f.gpuTelemetry {
		var err error
		if r.sampler, err = gpu.Start(r.in.ctx, gpu.Options{Interval: *f.gpuInterval}); err != nil {
			return r.stopped("a failed --gpu-telemetry", fmt.Errorf("--gpu-telemetry: %w", err))
		}
	}
	return r.preflightRequests()
}

// preflightRequests sizes the synthetic prompts, or sends the test
// request.
func (r *loadRun) preflightRequests() error {
	f, ctx := r.f, r.in.ctx
	if f.replaying() || *f.promptTokens > 0 {
		// The plan keeps the sizing, and with it the resolution of the
		// prompts' lengths: the fidelity's and the end line's.
		return r.sizeReplay() // replay.go
	}
	if _, err := drive.TestRequest(ctx, r.p); err != nil {
		return r.stopped("a failed test request", err)
	}
	return nil
}

// stopped ends the file when the run cannot go on before its load began,
// or when the load failed, and returns err with any error of the writing.
func (r *loadRun) stopped(by string, err error) error {
	end := &llmmetrics.RunEnd{State: "interrupted", By: by, Notes: r.notes}
	planRequests(end, r.p, len(r.rw.all()), nil)
	if signal := r.in.By(); signal != "" {
		// The request failed because the run was interrupted: a
		// signal, not a failure, and nothing of the load was sent.
		end.By = signal
		return errors.Join(fmt.Errorf("interrupted by %s %w", signal, errNotBegun), r.rw.finish(end))
	}
	werr := r.rw.finish(end)
	return errors.Join(err, werr)
}

// send is the send stage: the scrapes at the measured part's ends, the
// progress line and --start-at are set up, the load is sent and drained
// (drive.Run gives the requests in flight their grace), and the GPU
// sampler stopped. Its error is stopped's.
func (r *loadRun) send() (*drive.Outcome, *telemetry, error) {
	ctx := r.in.ctx
	if *r.f.scrape != "" {
		r.p.OnMeasure = r.scrapes.at(*r.f.scrape)
	}
	if isTerminal(os.Stderr) {
		r.p.Progress = func(pr drive.Progress) {
			fmt.Fprintf(os.Stderr, "\r%s", progressLine(pr))
		}
	}
	if err := r.sh.wait(ctx); err != nil { // shard.go
		by := "a signal before --start-at"
		if errors.Is(err, errUsage) {
			by = "--start-at past by the end of the test or sizing requests"
		}
		return nil, nil, r.stopped(by, err)
	}
	r.preflight = len(r.rw.all())
	r.in.Then(graceNote(r.p.Grace))
	health := genhealth.Start(genhealth.Tick) // the client's own lateness over the load
	out, err := drive.Run(ctx, r.p)
	r.health = health.Stop()
	if r.p.Progress != nil {
		fmt.Fprintln(os.Stderr)
	}
	var tele *telemetry
	if r.sampler != nil {
		samples, serr := r.sampler.Stop()
		tele = &telemetry{Level: levelName(r.p), GPUs: gpu.Summarize(samples, out.MeasureStart, out.MeasureEnd)}
		if serr != nil {
			tele.Note = serr.Error()
		}
	}
	if err != nil {
		return nil, nil, r.stopped("an error", err)
	}
	return out, tele, nil
}

// finish ends the file: the end line says how the run ended, what was
// planned and the notes; the scrapes are written beside it. It returns
// the end line and any error of the writing, which the report comes
// before.
func (r *loadRun) finish(out *drive.Outcome) (*llmmetrics.RunEnd, error) {
	end := &llmmetrics.RunEnd{State: "completed", Client: r.health}
	planRequests(end, r.p, r.preflight, out)
	if by := r.in.By(); by != "" {
		end.State, end.By = "interrupted", by
	}
	if out.Warmup != "" {
		r.notes = append(r.notes, "Warm-up: "+out.Warmup+".")
	}
	if out.Interrupted {
		r.notes = append(r.notes, "The run was interrupted by "+end.By+": sending stopped, requests still in flight after the grace period were cancelled, and every request sent is recorded.")
	}
	if note := closedStreamsNote(end, r.rw.all()); note != "" { // streamend.go
		r.notes = append(r.notes, note)
	}
	end.Notes = r.notes // kept in the file, so that report says them too
	werr := writeScrapes(r.proms, r.scrapes.rawBefore, r.scrapes.rawAfter, out, end)
	noteUnsent(end, r.p, out)      // runloop.go
	notePromptResolution(end, r.p) // reportplan.go
	return end, errors.Join(werr, r.rw.finish(end))
}

// write is the write stage: the run is summarized with the server side
// and the load check, the report written, and the exit status chosen.
func (r *loadRun) write(stdout io.Writer, out *drive.Outcome, end *llmmetrics.RunEnd, tele *telemetry, werr error) error {
	run := observe.Run(r.rw.all())
	run.Header, run.End = r.header, end // the summary takes the notes from the end line
	opt := r.opt
	opt.Lenient = true // the unknown-n requests are set aside and counted, never lost
	s, err := run.Summarize(opt)
	if err != nil {
		return errors.Join(err, werr)
	}
	var srv *server.Report
	var srvErr error // a failed scrape: the client report is printed, the server section absent
	if *r.f.scrape != "" {
		sc := r.scrapes
		srv, srvErr = serverSide(sc.before, sc.after, sc.err, out, run.Records)
	}
	lc := withClient(checkLoad(loadFacts(r.header, end), run.Records, s, opt), checkClient(end, run.Records))
	lc = r.withFidelity(lc) // fidelity.go
	if err := writeRunReport(stdout, s, srv, srvErr, tele, newErrorSet(run.Records), byTurn(run.Records), lc, *r.f.json); err != nil {
		return err
	}
	if werr != nil || srvErr != nil {
		return errors.Join(werr, srvErr)
	}
	if by := r.in.By(); strings.HasPrefix(by, "--max-error-rate") {
		return fmt.Errorf("%w: stopped by %s", errTooManyFailures, by)
	}
	// Every request failing is the larger fact: it comes before a gate,
	// whose latency conditions could then only say that they cannot be
	// judged.
	if err := allFailed(s, r.in.By()); err != nil {
		return err
	}
	return r.f.gate.check(s, lc)
}

// scrapes are the server's metrics at the two ends of the measured part,
// parsed and raw, with the first error of scraping.
type scrapes struct {
	before, after       *server.Scrape
	rawBefore, rawAfter []byte
	err                 error
}

// at returns a plan's OnMeasure that scrapes u at each end.
func (sc *scrapes) at(u string) func(begin bool) {
	return func(begin bool) {
		s, raw, err := scrape(u)
		if err != nil && sc.err == nil {
			at := "end"
			if begin {
				at = "beginning"
			}
			sc.err = fmt.Errorf("at the measured part's %s: %w", at, err)
		}
		if begin {
			sc.before, sc.rawBefore = s, raw
		} else {
			sc.after, sc.rawAfter = s, raw
		}
	}
}

// allFailed returns errAllFailed when no measured request ended ok
// (every one failed, or was rejected), and errNothingMeasured when none
// was sent: a run that measured nothing exits with status 4, whether its
// requests failed of their own, were cancelled when the grace ran out, or
// a signal (by, "" for none) stopped it.
func allFailed(s *llmmetrics.Summary, by string) error {
	a := s.Requests
	measured := a.Offered - a.Warmup - a.Preflight
	switch {
	case a.OK+a.ZeroToken > 0:
		return nil
	case measured == 0 && by != "":
		return fmt.Errorf("%w: %s stopped the run before its first measured request", errNothingMeasured, by)
	case measured == 0:
		return fmt.Errorf("%w: no measured request was sent", errNothingMeasured)
	}
	cancelled := fmt.Sprintf("%d cancelled", a.Cancelled)
	switch {
	case by != "" && a.Cancelled > 0:
		cancelled += " after " + by
	case a.Cancelled > 0:
		cancelled += " when the grace ran out"
	}
	rejected := ""
	if a.Rejected > 0 {
		rejected = fmt.Sprintf(", %d rejected", a.Rejected)
	}
	return fmt.Errorf("%w: %d of %d (%d errors, %d timeouts, %s%s); the error set above says why", errAllFailed, measured, measured, a.Errors, a.Timeouts, cancelled, rejected)
}
