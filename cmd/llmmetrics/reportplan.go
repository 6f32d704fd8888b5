package main

import (
	"cmp"
	"flag"
	"fmt"
	"os"
	"slices"
	"strconv"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/drive"
	"github.com/llmmetrics/llmmetrics/observe"
)

// report --plan: the fidelity section of a saved run, against the plan of
// its dry run. run prints the section as it ends, from the plan it sent;
// a file keeps the records, not the plan, so report takes the plan from
// the file run --dry-run wrote with the same flags (the plan is the same:
// its arrivals and lengths come from the flags, the trace and the seed).

// tokensPerWordKey is the end line's load fact of the server's count of a
// synthetic prompt's word, the resolution prompts were made to.
const tokensPerWordKey = "prompt_tokens_per_word"

// notePromptResolution adds the sizing's tokens per word to the end
// line's load, for report --plan.
func notePromptResolution(end *llmmetrics.RunEnd, p drive.Plan) {
	if p.Sizing == nil {
		return
	}
	if end.Load == nil {
		end.Load = map[string]string{}
	}
	end.Load[tokensPerWordKey] = strconv.FormatFloat(p.Sizing.TokensPerWord(), 'g', -1, 64)
}

// planFlag is report's --plan.
type planFlag struct{ path *string }

func (p *planFlag) define(fs *flag.FlagSet) {
	p.path = fs.String("plan", "", "compare a run file of llmmetrics' JSONL with `PLAN`, the plan its dry run wrote (run --dry-run --out PLAN, with the run's flags): the fidelity section run printed")
}

// withFidelity returns lc with the fidelity of run against the plan file,
// or lc itself without --plan. The plan must declare the load the run's
// header declares (every key but the request limits).
func (p *planFlag) withFidelity(lc *loadCheck, run *llmmetrics.Run) (*loadCheck, error) {
	if *p.path == "" {
		return lc, nil
	}
	h, plan, err := readPlanFile(*p.path)
	if err != nil {
		return nil, err
	}
	if err := samePlan(*p.path, h, run); err != nil {
		return nil, err
	}
	load := loadFacts(run.Header, run.End)
	resolution := 1.0
	if v, err := strconv.ParseFloat(load[tokensPerWordKey], 64); err == nil && v > 0 {
		resolution = v
	}
	block, _ := strconv.Atoi(h.Load["prefix_block_tokens"])
	by := ""
	if run.End != nil && run.End.State == "interrupted" {
		by = cmp.Or(run.End.By, "a signal")
	}
	fd := newFidelity(plan, block, resolution, resultsOf(run.Records), by)
	if fd == nil {
		return nil, valueError(fmt.Sprintf("--plan %s plans no measured request", *p.path))
	}
	fd.CappedPrompt, fd.CappedOutput = cappedRows(h.Load["cap_prompt_tokens"]), cappedRows(h.Load["cap_output_tokens"])
	if lc == nil {
		lc = &loadCheck{}
	}
	lc.Fidelity = fd
	lc.Warnings = append(lc.Warnings, fd.Warnings...)
	return lc, nil
}

// readPlanFile reads a plan file.
func readPlanFile(path string) (*drive.PlanHeader, []drive.Request, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, valueError(fmt.Sprintf("--plan: %v", err))
	}
	defer f.Close()
	h, plan, err := drive.ReadPlan(f)
	if err != nil {
		return nil, nil, inFile(path, err)
	}
	return h, plan, nil
}

// planOnlyKeys are the load keys a plan and its run may differ in: the
// limits on each request, which do not change what is asked, and the
// salt of the prompts' text, which a plan has none of.
var planOnlyKeys = []string{"timeout", "stall", "grace", "tls_handshake", "endpoint", promptSaltKey}

// samePlan says why the run was not sent from the plan h, if it was not:
// no header, a session run (whose turns wait for answers), or a load key,
// the model or the API that differs (a plan made without --model fits
// any model).
func samePlan(path string, h *drive.PlanHeader, run *llmmetrics.Run) error {
	rh := run.Header
	switch {
	case rh == nil:
		return valueError("--plan compares a run file of llmmetrics' JSONL, with its run header, to its plan: this file has no header")
	case h.Load["sessions"] != "":
		return valueError(fmt.Sprintf("--plan %s plans sessions: a turn's prompt is the whole conversation, which no plan knows, so a session run has no fidelity section", path))
	case h.Model != "" && h.Model != rh.Model || h.API != "" && h.API != rh.API: // a dry run needs no model
		return valueError(fmt.Sprintf("--plan %s is of model %q over %s, the run of model %q over %s", path, h.Model, h.API, rh.Model, rh.API))
	}
	for _, k := range unionKeys(h.Load, rh.Load) {
		_, fact := endLoad(run)[k] // known only at the end, which a plan is not
		if h.Load[k] != rh.Load[k] && !fact && !slices.Contains(planOnlyKeys, k) {
			return valueError(fmt.Sprintf("--plan %s is not this run's plan: its load's %s is %q, the run's %q (make the plan with the run's flags)", path, k, h.Load[k], rh.Load[k]))
		}
	}
	return nil
}

// endLoad returns the load facts of the run's end line, which the reader
// adds to its header's load.
func endLoad(run *llmmetrics.Run) map[string]string {
	if run.End == nil {
		return nil
	}
	return run.End.Load
}

// unionKeys returns the keys of a and b, sorted.
func unionKeys(a, b map[string]string) []string {
	var keys []string
	for k := range a {
		keys = append(keys, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}

// resultsOf returns records as the results run compared with its plan,
// with the cached prompt tokens the server reported.
func resultsOf(recs []llmmetrics.Record) []*observe.Result {
	out := make([]*observe.Result, len(recs))
	for i := range recs {
		res := &observe.Result{Record: recs[i]}
		if c := recs[i].Client; c != nil && c.HasCached {
			res.CacheKnown, res.CachedTokens = true, c.CachedPromptTokens
		}
		out[i] = res
	}
	return out
}

// cappedRows reads the rows capped from a load's cap fact, "1000 (12 rows
// capped)"; 0 without one.
func cappedRows(v string) int {
	var limit, n int
	if _, err := fmt.Sscanf(v, "%d (%d rows capped)", &limit, &n); err != nil {
		return 0
	}
	return n
}
