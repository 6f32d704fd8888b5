package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/drive"
	"github.com/llmmetrics/llmmetrics/observe"
)

// runSearch is run --search: the capacity search over one load level,
// each probe a run of the plan the other flags describe.
func runSearch(fs *flag.FlagSet, f *runFlags, stdout io.Writer) error {
	switch {
	case !flagSet(fs, "repeats"):
		*f.repeats = 3
	case *f.repeats < 1:
		return valueError(fmt.Sprintf("--repeats %d: --search needs at least one run at each end of the bracket", *f.repeats))
	}
	kind := *f.search
	if kind != "concurrency" && kind != "rate" {
		return fmt.Errorf("%w: --search %q: want concurrency or rate", errUsage, kind)
	}
	if *f.slo == "" {
		return fmt.Errorf("%w: --search needs --slo: the capacity is the highest level that meets it", errUsage)
	}
	if kind == "concurrency" && (flagSet(fs, "concurrency") || flagSet(fs, "rate")) {
		return fmt.Errorf("%w: --search concurrency sets each probe's concurrency: leave --concurrency and --rate out", errUsage)
	}
	if kind == "rate" && flagSet(fs, "rate") {
		return fmt.Errorf("%w: --search rate sets each probe's rate: leave --rate out (--concurrency caps the requests in flight)", errUsage)
	}
	if flagSet(fs, "scrape") {
		return fmt.Errorf("%w: --search runs many probes: scrape them with a Prometheus server instead of --scrape", errUsage)
	}
	// The level is each probe's; a placeholder lets the plan be checked.
	placeholder := 1.0
	if kind == "concurrency" {
		*f.concurrency = 1
	} else {
		*f.rate = placeholder
	}
	p, opt, err := f.plan(fs)
	if err != nil {
		return err
	}
	base := strings.TrimSuffix(*f.out, ".jsonl")
	var pw *recordWriter
	if *f.out != "" {
		// The probes' files are named as they run: an old one is refused
		// now, as any existing output is. The sizing requests, or the
		// test request, go to a file of their own beside them, on their
		// own clock.
		if old, _ := filepath.Glob(probeName(base, kind, "*", "*")); len(old) > 0 && !*f.force {
			return valueError(fmt.Sprintf("--out %s: the probe file %s exists; --force overwrites it", *f.out, old[0]))
		}
		if pw, _, err = (outputs{out: base + "-preflight.jsonl"}).check(f.inputs(), *f.force); err != nil {
			return err
		}
	}
	in := catchInterrupts(os.Stderr, graceNote(p.Grace))
	defer in.release()
	ctx := in.ctx
	p.Abort = in.abort
	pre := p
	pre.Epoch = time.Now()
	preHeader := f.header(ctx, fs, pre, pre.Epoch, f.load(pre))
	if pw != nil {
		pre.OnResult = pw.add
		if err := pw.header(preHeader); err != nil {
			pw.finish(&llmmetrics.RunEnd{State: "interrupted"})
			return err
		}
	}
	var preflight []*observe.Result
	if *f.promptTokens > 0 {
		n := 1000
		if p.Requests > 0 {
			n = p.Requests + p.Warmup.Requests
		}
		p.Prompts, preflight, _, err = f.syntheticPrompts(ctx, pre, n)
	} else {
		var res *observe.Result
		res, err = drive.TestRequest(ctx, pre)
		if res != nil {
			preflight = append(preflight, res)
		}
	}
	if pw != nil {
		end := &llmmetrics.RunEnd{State: "completed", Planned: len(preflight)}
		if err != nil {
			end.State, end.By = "interrupted", cmp.Or(in.By(), "a failed preflight request")
		}
		if werr := pw.finish(end); werr != nil {
			return errors.Join(err, werr)
		}
	}
	if err != nil {
		return err
	}
	s := drive.Search{Kind: kind, From: *f.searchFrom, Max: *f.searchMax, Target: *f.attainTarget, SLO: *opt.SLO, Repeats: *f.repeats}
	probes := &probeWriter{f: f, fs: fs, kind: kind, base: base, in: in, server: preHeader.Server}
	s.Run = probes.run
	out, err := drive.SearchCapacity(ctx, p, s)
	usage, noVerdict := readSearchEnd(out, s, err, in.By()) // searchend.go
	if usage != nil {
		return errors.Join(usage, probes.err)
	}
	stop := searchStop{by: in.By(), planned: probesPlanned(p)}
	if err := errors.Join(writeSearch(stdout, kind, s, out, probes.files, stop, *f.json), probes.err); err != nil {
		return err
	}
	if noVerdict != nil {
		return noVerdict
	}
	return searchMeasured(out, in.By())
}

// searchMeasured applies run's rule to a search: a search none of whose
// probes had a measured request that ended ok measured nothing, and exits
// with status 4 after its report, whose bracket is then read from
// failures alone. It returns errAllFailed when measured requests were
// sent and every one failed, with the first failure in the server's
// words, and errNothingMeasured when none was sent (a signal, by, during
// the first probe's warm-up, say).
func searchMeasured(out *drive.SearchOutcome, by string) error {
	sent, first := 0, ""
	for _, p := range out.Probes {
		for _, r := range p.Outcome.Results {
			rec := &r.Record
			if rec.Warmup || rec.Preflight || rec.Unfinished {
				continue
			}
			if rec.Status == llmmetrics.StatusOK {
				return nil
			}
			sent++
			if first == "" {
				first = rec.Message
			}
		}
	}
	probes := fmt.Sprintf("%d probe", len(out.Probes))
	if len(out.Probes) != 1 {
		probes += "s"
	}
	switch {
	case sent == 0 && by != "":
		return fmt.Errorf("%w: %s stopped the search before its first measured request", errNothingMeasured, by)
	case sent == 0:
		return fmt.Errorf("%w: no probe of the search sent a measured request", errNothingMeasured)
	}
	return fmt.Errorf("%w: %d of %d in the search's %s, so its bracket says nothing of the server; the first failure: %s",
		errAllFailed, sent, sent, probes, cmp.Or(first, "(no message)"))
}

// probeWriter runs a search's probes, each written to its own file as its
// requests end (--out with the level and the probe's number before the
// extension, so that sweep reads them), after a header naming its level
// and before an end line, as a load run's.
type probeWriter struct {
	f      *runFlags
	fs     *flag.FlagSet
	kind   string
	base   string // --out without .jsonl; "" without --out
	in     *interrupts
	server map[string]json.RawMessage // what the server said of itself, asked once
	files  []string
	err    error // the errors of writing
}

// probeName names the file of a search's probe at level, the n-th.
func probeName(base, kind, level, n string) string {
	return fmt.Sprintf("%s-%s%s-%s.jsonl", base, kind, level, n)
}

// run runs one probe, writing its records as they come.
func (pw *probeWriter) run(ctx context.Context, q drive.Plan) (*drive.Outcome, error) {
	if pw.base == "" {
		return drive.Run(ctx, q)
	}
	level := q.Rate
	if pw.kind == "concurrency" {
		level = float64(q.Concurrency)
	}
	name := probeName(pw.base, pw.kind, fmt.Sprint(level), fmt.Sprint(len(pw.files)+1))
	w, _, err := outputs{out: name}.check(nil, true) // refused at the start without --force
	if err != nil {
		pw.err = errors.Join(pw.err, err)
		pw.files = append(pw.files, "") // one name a probe
		return drive.Run(ctx, q)
	}
	pw.files = append(pw.files, name)
	q.Epoch, q.OnResult = time.Now(), w.add
	h := pw.f.headerOnly(pw.fs, q, q.Epoch, pw.f.load(q))
	h.Server = pw.server
	if err := w.header(h); err != nil {
		pw.err = errors.Join(pw.err, err)
	}
	o, err := drive.Run(ctx, q)
	end := &llmmetrics.RunEnd{State: "completed"}
	planRequests(end, q, 0, o)
	switch {
	case err != nil:
		end.State, end.By = "interrupted", "an error"
	case o.Interrupted:
		end.State, end.By = "interrupted", cmp.Or(pw.in.By(), "an interrupt")
	}
	if o != nil && o.Warmup != "" {
		end.Notes = append(end.Notes, "Warm-up: "+o.Warmup+".")
	}
	if werr := w.finish(end); werr != nil {
		pw.err = errors.Join(pw.err, werr)
	}
	return o, err
}

// attainmentRange is a probe's attainment, or its range where requests
// unjudged against a TPOT limit make it a lower bound: "0.95 to 1".
func attainmentRange(pr drive.Probe) string {
	if pr.Upper > pr.Attainment {
		return fmt.Sprintf("%.4g to %.4g", pr.Attainment, pr.Upper)
	}
	return fmt.Sprintf("%.4g", pr.Attainment)
}

// writeSearch writes the probes and the bracket; a probe cut short is
// written as such, with no attainment and no verdict (searchend.go).
func writeSearch(w io.Writer, kind string, s drive.Search, out *drive.SearchOutcome, files []string, stop searchStop, asJSON bool) error {
	if asJSON {
		type probe struct {
			Level       float64  `json:"level"`
			Attainment  *float64 `json:"attainment"`
			Upper       *float64 `json:"attainment_upper_bound,omitempty"` // where Attainment is a lower bound
			Pass        *bool    `json:"pass"`
			Repeat      bool     `json:"repeat"`
			File        string   `json:"file,omitempty"`
			Interrupted bool     `json:"interrupted,omitempty"`
		}
		var probes []probe
		for i, pr := range out.Probes {
			p := probe{pr.Level, &pr.Attainment, nil, &pr.Pass, pr.Repeat, "", false}
			if pr.Upper > pr.Attainment {
				p.Upper = &pr.Upper
			}
			if interruptedProbe(pr) {
				p.Attainment, p.Pass, p.Interrupted = nil, nil, true
			}
			if files != nil {
				p.File = files[i]
			}
			probes = append(probes, p)
		}
		b, err := json.Marshal(map[string]any{"search": map[string]any{"kind": kind, "target": s.Target, "slo": s.SLO.String(),
			"probes": probes, "passing": out.Passing, "failing": out.Failing, "reason": out.Reason, "interrupted": out.Interrupted}})
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(w, "%s\n", b)
		return err
	}
	fmt.Fprintf(w, "llmmetrics run --search %s\n\n", kind)
	fmt.Fprintf(w, "probes (attainment against SLO %s; target %g):\n", s.SLO, s.Target)
	for i, pr := range out.Probes {
		verdict := "meets"
		if !pr.Pass {
			verdict = "misses"
		}
		note := ""
		if pr.Repeat {
			note = " (repeat)"
		}
		if interruptedProbe(pr) {
			fmt.Fprintf(w, "  %2d. %s%s\n", i+1, interruptedProbeLine(kind, pr, stop), note)
			continue
		}
		fmt.Fprintf(w, "  %2d. %s %-8g attainment %s: %s the target%s\n", i+1, kind, pr.Level, attainmentRange(pr), verdict, note)
	}
	fmt.Fprintf(w, "\n%s\n", out.Reason)
	if len(files) > 0 {
		fmt.Fprintf(w, "\nthe probes' records are in %s … %s; llmmetrics sweep --slo '%s' reports them per level\n", files[0], files[len(files)-1], sloFlag(s.SLO))
	}
	return nil
}

// sloFlag writes an SLO as --slo reads it.
func sloFlag(slo llmmetrics.SLO) string {
	var parts []string
	for _, m := range llmmetrics.Metrics() {
		if limit, ok := m.Limit(slo); ok && limit != 0 {
			parts = append(parts, m.Key+"="+limit.String())
		}
	}
	return strings.Join(parts, ",")
}

// searchAbout is the paragraph of run's help on --search.
const searchAbout = "--search concurrency (or rate) looks for the capacity: the highest level at which --target of the\n" +
	"requests meet --slo (DistServe's framing). Each probe is one run of the plan; the level doubles from\n" +
	"--search-from until a probe misses the target, then is bisected until the bracket is within 5% (or\n" +
	"adjacent concurrencies) or 12 probes have run; each end of the bracket is then run until it has\n" +
	"--repeats runs, and the bracket is read from their median attainment. With --out, each probe's\n" +
	"records go to their own file, named by level, for llmmetrics sweep, and the sizing or test requests\n" +
	"to OUT-preflight.jsonl: each written as its requests end, with a header and an end line, as a run's."

// searchFlags are run's flags of --search alone (--repeats is shared with
// --ttft-breakdown).
type searchFlags struct {
	search                *string
	searchFrom, searchMax *float64
	attainTarget          *float64
}

func (s *searchFlags) define(fs *flag.FlagSet) {
	s.search = fs.String("search", "", "search for the capacity: the highest `concurrency` (or rate) at which --target of the requests meet --slo; each probe is a run of --requests or --duration")
	s.searchFrom = fs.Float64("search-from", 1, "with --search: the first level probed")
	s.searchMax = fs.Float64("search-max", 1024, "with --search: the highest level probed")
	s.attainTarget = fs.Float64("target", 0.9, "with --search: the attainment `fraction` the capacity must meet")
}
