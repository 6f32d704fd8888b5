package main

import (
	"errors"
	"flag"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/llmmetrics/llmmetrics/drive"
	"github.com/llmmetrics/llmmetrics/drive/trace"
	"github.com/llmmetrics/llmmetrics/internal/plural"
	"github.com/llmmetrics/llmmetrics/observe"
)

// replayFlags are run's flags of a replayed trace, of bursty arrivals and
// of the dry run.
type replayFlags struct {
	replay, replayFormat, arrivals *string
	speed, scaleTokens             *float64
	replayFrom, replayTo           *time.Duration
	replayRows, capPrompt, capOut  *int
	dryRun, replayStream           *bool
	prefixGroups, prefixTokens     *int

	replayed     *trace.Replay // the window sent, once applied
	format       trace.Format  // the trace's format, once read
	noUsage      int           // a run file's ok requests left out for want of usage
	noUsageWhy   string        // why they lack it, by the file's tool
	sessionTurns int           // a run file's rows that were turns of sessions
}

func (r *replayFlags) define(fs *flag.FlagSet) {
	r.arrivals = fs.String("arrivals", "", "open loop: bursty arrivals instead of --rate's Poisson or gamma: `onoff:on=2s,off=8s,rate=40` (Poisson at rate during each ON window, none in OFF, from the start of the warm-up and of the measured part; mean rate·on/(on+off)) or pareto:alpha=1.5,rate=20 (Pareto gaps of tail index alpha > 1 and mean 1/rate); seeded by --seed, recorded in the header")
	r.replay = fs.String("replay", "", "replay a trace `file`: one request per row at its time from the window's first row (divided by --speed), with a synthetic prompt of its prompt length and its output length as max_tokens, enforced where the API allows (ignore_eos and min_tokens for chat and completions, said in the header); instead of --requests, --duration, --rate, --prompt-tokens, --prompts, --max-tokens and --warmup")
	r.replayFormat = fs.String("replay-format", "auto", "the --replay file's `format`: auto (from its first line), azure (TIMESTAMP,ContextTokens,GeneratedTokens), mooncake (JSON lines of timestamp ms, input_length, output_length, hash_ids), burstgpt (Timestamp, Request tokens, Response tokens) or llmmetrics (a run file: the send times and usage of its ok requests)")
	r.replayStream = fs.Bool("replay-stream", false, "with --replay of a run file (llmmetrics): stream every request, those production made without streaming too (a TTFT for every call, but not the load production sent); without it they are sent unstreamed, as production sent them, each an answer in one JSON body with an E2E and no TTFT or TPOT")
	r.speed = fs.Float64("speed", 1, "with --replay: time scaled by 1/`X` (2 replays twice as fast)")
	r.replayFrom = fs.Duration("replay-from", 0, "with --replay: the window's start, a `duration` into the trace (its rows at or after it)")
	r.replayTo = fs.Duration("replay-to", 0, "with --replay: the window's end, a `duration` into the trace (its rows before it; 0: to the end)")
	r.replayRows = fs.Int("replay-rows", 0, "with --replay: at most the window's first `N` rows (0: all)")
	r.scaleTokens = fs.Float64("scale-tokens", 1, "with --replay: every prompt and output length multiplied by `F`, rounded, at least 1")
	r.capPrompt = fs.Int("cap-prompt-tokens", 0, "with --replay: prompts longer than `N` tokens sent at N (after --scale-tokens), each capped row counted and said (0: none)")
	r.capOut = fs.Int("cap-output-tokens", 0, "with --replay: outputs longer than `N` tokens asked at N (after --scale-tokens), each capped row counted and said (0: none)")
	r.prefixGroups = fs.Int("prefix-groups", 0, "with --prompt-tokens: `G` shared prefixes (system prompts) of --prefix-tokens each; every request draws one (seeded by --seed) and its prompt begins with it, byte for byte, before a part of its own, so that a server's prefix cache can reuse it; the report gives the share of prompt tokens planned to be shared and, where the server reports them, its cached prompt tokens")
	r.prefixTokens = fs.Int("prefix-tokens", 0, "with --prefix-groups: each shared prefix's length `P` in tokens, as the server counts them (shorter than every prompt)")
	r.dryRun = fs.Bool("dry-run", false, "send nothing: write the plan (each request's scheduled offset, prompt tokens targeted, max_tokens, prefix blocks, group, session and turn) to --out and describe it, or without --out write the plan alone to standard output; 'llmmetrics report plan.jsonl' describes it (again)")
}

// replaying says whether the run replays a trace.
func (r *replayFlags) replaying() bool { return *r.replay != "" }

// checkReplay refuses the flags of a replay or of a dry run given where
// they do not belong, before anything is read or sent.
func (f *runFlags) checkReplay(fs *flag.FlagSet) error {
	var only []string
	fs.Visit(func(fl *flag.Flag) {
		switch fl.Name {
		case "replay-format", "speed", "replay-from", "replay-to", "replay-rows", "scale-tokens", "cap-prompt-tokens", "cap-output-tokens", "replay-stream":
			only = append(only, "--"+fl.Name)
		}
	})
	other := *f.ttftBreakdown || *f.search != ""
	switch {
	case other && (*f.dryRun || f.replaying() || *f.arrivals != ""):
		return fmt.Errorf("%w: --dry-run, --replay and --arrivals belong to a plain run, not to --search or --ttft-breakdown", errUsage)
	case !f.replaying() && len(only) > 0:
		return fmt.Errorf("%w: %s belong to --replay", errUsage, strings.Join(only, ", "))
	case f.replaying() && !(*f.speed > 0):
		return valueError(fmt.Sprintf("--speed %v: want a positive factor (2 replays twice as fast, 0.5 half as fast)", *f.speed))
	case f.replaying() && !(*f.scaleTokens > 0):
		return valueError(fmt.Sprintf("--scale-tokens %v: want a positive factor (0.5 halves every length)", *f.scaleTokens))
	case f.replaying() && (flagSet(fs, "shard") || flagSet(fs, "start-at")):
		return fmt.Errorf("%w: a replay is sent by one machine: --shard and --start-at are not for it", errUsage)
	}
	if err := f.checkReplayOnly(fs); err != nil {
		return err
	}
	if err := f.checkReplayWindow(); err != nil {
		return err
	}
	if err := f.checkPrefixGroups(fs); err != nil {
		return err
	}
	if *f.arrivals != "" && (flagSet(fs, "rate") || flagSet(fs, "burstiness")) {
		return fmt.Errorf("%w: --arrivals gives the rate and the shape of the arrivals: leave out --rate and --burstiness", errUsage)
	}
	return nil
}

// checkReplayOnly refuses, with --replay, the flags whose load the trace
// gives.
func (f *runFlags) checkReplayOnly(fs *flag.FlagSet) error {
	if !f.replaying() {
		return nil
	}
	var not []string
	for _, n := range []string{"requests", "duration", "rate", "burstiness", "arrivals", "prompt-tokens", "prompts", "max-tokens", "warmup"} {
		if flagSet(fs, n) {
			not = append(not, "--"+n)
		}
	}
	if len(not) > 0 {
		return fmt.Errorf("%w: --replay takes the requests, their times and their lengths from the trace: leave out %s", errUsage, strings.Join(not, ", "))
	}
	return nil
}

// checkReplayWindow refuses a window whose end (--replay-to, 0 for the
// trace's end) is not after its start.
func (f *runFlags) checkReplayWindow() error {
	from, to := *f.replayFrom, *f.replayTo
	switch {
	case to <= 0 || to > from:
		return nil
	case to == from:
		return valueError(fmt.Sprintf("--replay-to %v is --replay-from: the window would hold no time", to))
	}
	return valueError(fmt.Sprintf("--replay-to %v comes before --replay-from %v: the window ends after it starts", to, from))
}

// checkPrefixGroups checks --prefix-groups and --prefix-tokens.
func (f *runFlags) checkPrefixGroups(fs *flag.FlagSet) error {
	switch groups, tokens := *f.prefixGroups > 0 || flagSet(fs, "prefix-groups"), flagSet(fs, "prefix-tokens"); {
	case (groups || tokens) && f.replaying():
		return fmt.Errorf("%w: a replay's shared prefixes are its trace's (Mooncake's hash_ids): leave out --prefix-groups and --prefix-tokens", errUsage)
	case groups != tokens:
		return fmt.Errorf("%w: give --prefix-groups and --prefix-tokens together", errUsage)
	case groups && (*f.prefixGroups < 1 || *f.prefixTokens < 1):
		return valueError(fmt.Sprintf("--prefix-groups %d and --prefix-tokens %d: want positive numbers", *f.prefixGroups, *f.prefixTokens))
	case groups && *f.promptTokens <= 0:
		return fmt.Errorf("%w: --prefix-groups makes synthetic prompts: give --prompt-tokens, not --prompts", errUsage)
	}
	return nil
}

// applyReplay sets the plan's load from --arrivals, or from the --replay
// trace (read whole, its window cut: a bad trace is one line naming the
// file, the line and the field, status 2, before anything is sent).
func (f *runFlags) applyReplay(p *drive.Plan) error {
	if *f.arrivals != "" {
		a, err := drive.ParseArrivals(*f.arrivals)
		if err != nil {
			return usageError("arrivals", err)
		}
		p.Arrivals, p.Rate, p.Burstiness = a, a.MeanRate(), 0
	}
	if *f.prefixGroups > 0 {
		p.PrefixGroups, p.PrefixBlockTokens = *f.prefixGroups, *f.prefixTokens
		if lengths := f.plannedPromptLengths(*p); len(lengths) > 0 && slices.Min(lengths) <= *f.prefixTokens {
			return valueError(fmt.Sprintf("--prefix-tokens %d: the prompts (as short as %d tokens) must be longer than their shared prefix, to hold a part of their own", *f.prefixTokens, slices.Min(lengths)))
		}
	}
	if !f.replaying() {
		return nil
	}
	format, err := trace.ParseFormat(*f.replayFormat)
	if err != nil {
		return usageError("replay-format", err)
	}
	if err := refusePlanReplay(*f.replay); err != nil { // plansessions.go
		return err
	}
	tr, err := trace.Read(*f.replay, format)
	if err != nil {
		return valueError("--replay: " + strings.TrimPrefix(err.Error(), "trace: "))
	}
	r, err := tr.Replay(trace.Options{From: *f.replayFrom, To: *f.replayTo, Rows: *f.replayRows, Speed: *f.speed,
		ScaleTokens: *f.scaleTokens, MaxPrompt: *f.capPrompt, MaxOutput: *f.capOut, Stream: *f.replayStream})
	if err != nil {
		return valueError("--replay: " + strings.TrimPrefix(err.Error(), "trace: "))
	}
	if err := refuseUnstreamed(*p, r); err != nil {
		return err
	}
	f.replayed, f.format, f.noUsage, f.noUsageWhy, f.sessionTurns = r, tr.Format, tr.NoUsage, tr.NoUsageWhy, tr.SessionTurns
	p.Replay, p.Requests, p.Rate, p.Burstiness, p.MaxTokens, p.ExactOutput = r.Requests, len(r.Requests), r.MeanRate(), 0, 0, true
	p.PrefixBlockTokens = r.BlockTokens
	return nil
}

// refuseUnstreamed refuses, in one line before anything is sent, a replay
// of calls production made without streaming to an API that cannot take
// them so: a TGI URL without the /generate_stream that such a call's
// /generate takes the place of. A dry run (no --url) plans them.
func refuseUnstreamed(p drive.Plan, r *trace.Replay) error {
	if r.Unstreamed == 0 || p.URL == "" {
		return nil
	}
	why := ""
	switch u, err := url.Parse(p.URL); {
	case p.API == observe.TGI && (err != nil || !strings.HasSuffix(u.Path, "/generate_stream")):
		why = "TGI's go to /generate in place of /generate_stream, which --url does not end in"
	default:
		return nil
	}
	return valueError(fmt.Sprintf("--replay: %d of %d requests were made without streaming in production (the first %s), and %s: give --replay-stream to stream them all",
		r.Unstreamed, len(r.Requests), r.Requests[slices.IndexFunc(r.Requests, func(q drive.Request) bool { return q.Unstreamed })].Source, why))
}

// prefixLoad adds the shared prefixes to a header's load: their blocks
// and the share of the prompt tokens planned that a prefix cache could
// reuse (drive.PrefixShare), where the plan lists its requests.
func (f *runFlags) prefixLoad(p drive.Plan, load map[string]string) {
	if p.PrefixBlockTokens <= 0 {
		return
	}
	if len(p.Replay) == 0 && len(p.PromptTokensEach) == 0 {
		p.PromptTokensEach = f.plannedPromptLengths(p) // as the run will size them
	}
	if p.PrefixGroups > 0 {
		load["prefix_groups"] = fmt.Sprintf("%d of %d tokens, each request drawing one (seeded)", p.PrefixGroups, p.PrefixBlockTokens)
	} else {
		load["prefix_block_tokens"] = fmt.Sprint(p.PrefixBlockTokens)
	}
	reqs, _, err := drive.Schedule(p)
	if err != nil {
		return // a closed loop of a duration: no list of requests
	}
	if share := prefixSharing(reqs, p.PrefixBlockTokens); share != "" {
		load["prefix_sharing"] = share
	}
}

// prefixSharing states the share of the prompt tokens of the measured
// requests of reqs that a prefix cache holding every block sent before
// (the warm-up's included) could reuse.
func prefixSharing(reqs []drive.Request, size int) string {
	shared, total := 0, 0
	for i, n := range drive.PrefixShare(reqs, size) {
		if !reqs[i].Warmup {
			shared, total = shared+n, total+reqs[i].PromptTokens
		}
	}
	if total <= 0 {
		return ""
	}
	return fmt.Sprintf("%.1f%% of the %d prompt tokens planned (%d) are in blocks sent before, in %d-token blocks", 100*float64(shared)/float64(total), total, shared, size)
}

// replayLoad adds the arrivals or the replay to a header's load.
func (f *runFlags) replayLoad(p drive.Plan, load map[string]string) {
	if p.Arrivals.Process != "" {
		load["arrivals"], load["seed"] = p.Arrivals.String(), fmt.Sprint(p.Seed)
		delete(load, "burstiness")
	}
	f.prefixLoad(p, load)
	r := f.replayed
	if r == nil || len(p.Replay) == 0 {
		return
	}
	delete(load, "burstiness")
	load["replay"], load["replay_format"], load["speed"] = *f.replay, string(f.format), fmt.Sprint(r.Speed)
	load["replay_window"] = fmt.Sprintf("%v to %v of the trace, %d rows (%s)", r.First, r.First+r.Span, len(r.Requests), fileLines(p.Replay))
	if *f.scaleTokens != 1 {
		load["scale_tokens"] = fmt.Sprint(*f.scaleTokens)
	}
	if *f.capPrompt > 0 {
		load["cap_prompt_tokens"] = fmt.Sprintf("%d (%d rows capped)", *f.capPrompt, r.CappedPrompt)
	}
	if *f.capOut > 0 {
		load["cap_output_tokens"] = fmt.Sprintf("%d (%d rows capped)", *f.capOut, r.CappedOutput)
	}
	if s := unstreamedLoad(r); s != "" {
		load["unstreamed"] = s
	}
	lo, hi := lengthRange(p.Replay, func(q drive.Request) int { return q.PromptTokens })
	load["prompt_tokens"] = fmt.Sprintf("each row's, %d to %d", lo, hi)
	lo, hi = lengthRange(p.Replay, func(q drive.Request) int { return q.MaxTokens })
	load["max_tokens"] = fmt.Sprintf("each row's output length, %d to %d", lo, hi)
	load["output_length"] = outputEnforced(p)
}

// fileLines says the lines of the file the rows of reqs were read from:
// the first and the last in the file (its rows are sent in time order,
// which need not be the file's), with a word when they are not all the
// lines between.
func fileLines(reqs []drive.Request) string {
	lo, hi := lengthRange(reqs, func(q drive.Request) int {
		n, _ := strconv.Atoi(q.Source[strings.LastIndexByte(q.Source, ':')+1:]) // file:line
		return n
	})
	switch {
	case lo == hi:
		return fmt.Sprintf("line %d of the file", lo)
	case hi-lo+1 == len(reqs):
		return fmt.Sprintf("lines %d to %d of the file", lo, hi)
	}
	return fmt.Sprintf("among lines %d to %d of the file", lo, hi)
}

// outputEnforced says how the trace's output lengths are asked of the
// server.
func outputEnforced(p drive.Plan) string {
	fields := p.ExactFields()
	if len(fields) == 0 {
		return fmt.Sprintf("max_tokens only: the %s API has no field that forbids an early stop (or --body gives it); a server that stops early shows as early stops", p.API)
	}
	return fmt.Sprintf("max_tokens with %s = the same length (vLLM honours ignore_eos and min_tokens, SGLang and llama.cpp's server ignore_eos); a server that stops early shows as early stops", strings.Join(fields, " and "))
}

// lengthRange returns the least and the greatest of a length over reqs.
func lengthRange(reqs []drive.Request, of func(drive.Request) int) (lo, hi int) {
	lo, hi = of(reqs[0]), of(reqs[0])
	for _, q := range reqs[1:] {
		lo, hi = min(lo, of(q)), max(hi, of(q))
	}
	return lo, hi
}

// replayNotes say what of the trace is replayed, and what was capped.
func (f *runFlags) replayNotes() []string {
	r := f.replayed
	if r == nil {
		return nil
	}
	n := len(r.Requests)
	lengths := "as the trace gives them"
	if *f.scaleTokens != 1 {
		lengths = fmt.Sprintf("the trace's times %v (--scale-tokens), rounded, at least 1", *f.scaleTokens)
	}
	var caps []string
	if *f.capPrompt > 0 {
		caps = append(caps, fmt.Sprintf("prompts at most %d", *f.capPrompt))
	}
	if *f.capOut > 0 {
		caps = append(caps, fmt.Sprintf("outputs at most %d", *f.capOut))
	}
	if len(caps) > 0 {
		lengths += ", then capped: " + strings.Join(caps, " and ") + " tokens"
	}
	notes := []string{fmt.Sprintf("Replayed %d rows of %s (%s): each sent at its time from the window's first row (%v into the trace), divided by the speed %v; its prompt and output lengths %s.",
		n, *f.replay, f.format, r.First, r.Speed, lengths)}
	if f.sessionTurns > 0 {
		notes = append(notes, fmt.Sprintf("%s of the file were turns of multi-turn sessions: each is replayed as a request of its own at its send time, its prompt the length the server counted (the conversation so far) in new text, not as a conversation: a server's prefix cache does not see the sessions' sharing (to send sessions, run them with --sessions).", plural.Of(f.sessionTurns, "row")))
	}
	if s := unstreamedNote(r); s != "" {
		notes = append(notes, s)
	}
	if f.noUsage > 0 {
		notes = append(notes, fmt.Sprintf("%s without a usage count left out: %s.", plural.Of(f.noUsage, "ok request"), f.noUsageWhy))
	}
	if r.Capped > 0 {
		var what []string
		if r.CappedPrompt > 0 {
			what = append(what, fmt.Sprintf("%d prompts at %d tokens (--cap-prompt-tokens)", r.CappedPrompt, *f.capPrompt))
		}
		if r.CappedOutput > 0 {
			what = append(what, fmt.Sprintf("%d outputs at %d tokens (--cap-output-tokens)", r.CappedOutput, *f.capOut))
		}
		notes = append(notes, fmt.Sprintf("%d of %d trace rows capped: %s.", r.Capped, n, strings.Join(what, ", ")))
	}
	return notes
}

// unstreamedLoad is a header's load of the requests a replayed run file
// sends without streaming, as production sent them, or streamed all the
// same (--replay-stream); "" when production streamed every one.
func unstreamedLoad(r *trace.Replay) string {
	n := len(r.Requests)
	switch {
	case r.Unstreamed > 0:
		return fmt.Sprintf("%d of %d requests sent without streaming, as production sent them", r.Unstreamed, n)
	case r.Restreamed > 0:
		return fmt.Sprintf("none: %d of %d requests that production sent without streaming are streamed (--replay-stream)", r.Restreamed, n)
	}
	return ""
}

// unstreamedNote says what the requests production made without
// streaming become in the replay.
func unstreamedNote(r *trace.Replay) string {
	n := len(r.Requests)
	switch {
	case r.Unstreamed > 0:
		return fmt.Sprintf("%d of %d requests replayed without streaming, as production sent them: each answer comes in one JSON body, with an E2E and no TTFT or TPOT, as in production (--replay-stream streams them).", r.Unstreamed, n)
	case r.Restreamed > 0:
		return fmt.Sprintf("%d of %d requests that production sent without streaming are replayed streamed (--replay-stream): their TTFT and TPOT have no counterpart in production, and the load is not the one production sent.", r.Restreamed, n)
	}
	return ""
}

// sizeReplay sizes the prompts of a replay, or of --prompt-tokens (with
// shared prefix groups or without), with the preflight requests, the
// prompts themselves made as each request is sent. A --prompt-tokens
// length below the smallest prompt the server allows stops the run, as a
// trace's highest does; a trace's lower ones are sent at the smallest.
func (r *loadRun) sizeReplay() error {
	var lo, hi int
	short := "trace prompts below the smallest prompt"
	if len(r.p.Replay) > 0 {
		lo, hi = lengthRange(r.p.Replay, func(q drive.Request) int { return q.PromptTokens })
	} else {
		r.p.PromptTokensEach = r.f.plannedPromptLengths(r.p)
		lo, hi = slices.Min(r.p.PromptTokensEach), slices.Max(r.p.PromptTokensEach)
		short = "--prompt-tokens below the smallest prompt"
	}
	sz, _, note, err := drive.SizePrompts(r.in.ctx, r.p, lo, hi)
	if err == nil && len(r.p.Replay) == 0 && r.p.PrefixBlockTokens == 0 && lo < sz.Smallest() {
		err = &drive.TooShortError{Tokens: lo, Smallest: sz.Smallest()}
	}
	if err != nil {
		var tooShort *drive.TooShortError
		if errors.As(err, &tooShort) {
			// The sizing requests were answered: the size asked is
			// below the template's own.
			r.notes = append(r.notes, "The run stopped after sizing its prompts: "+strings.TrimPrefix(err.Error(), "drive: ")+".")
			return r.stopped(short, err)
		}
		return r.stopped("a failed sizing request", err)
	}
	r.p.Sizing = sz
	r.notes = append(r.notes, note+".")
	if small := sz.Smallest(); lo < small && len(r.p.Replay) > 0 {
		raised := 0
		for _, q := range r.p.Replay {
			if q.PromptTokens < small {
				raised++
			}
		}
		what := "one word, the chat template and the salt"
		if r.p.PrefixBlockTokens > 0 {
			what = "the chat template and its first block's salt"
		}
		r.notes = append(r.notes, fmt.Sprintf("%d of %d trace rows ask a prompt shorter than the smallest this server allows, %d tokens (%s): sent at %d.",
			raised, len(r.p.Replay), small, what, small))
	}
	return nil
}

// plannedPromptLengths returns the prompt lengths a dry run plans for
// --prompt-tokens: drawn as the run draws them, or the one length.
func (f *runFlags) plannedPromptLengths(p drive.Plan) []int {
	if *f.promptTokens <= 0 || len(p.Replay) > 0 {
		return nil
	}
	if f.promptLen.spread == 0 {
		return []int{*f.promptTokens}
	}
	return f.promptLen.draw(plannedCount(p), *f.seed, 13) // sessions.go
}
