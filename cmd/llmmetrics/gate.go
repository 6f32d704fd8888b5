package main

import (
	"errors"
	"flag"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/compare"
)

// errGate marks a run that crossed a gate's condition: it exits with
// status 3, apart from bad input (1) and bad usage (2).
var errGate = errors.New("gate failed")

// gate holds report's CI conditions: --fail-below and --fail-if.
type gate struct {
	failBelow  *float64
	failIf     list
	conditions []compare.Condition
}

func (g *gate) define(fs *flag.FlagSet) {
	g.failBelow = fs.Float64("fail-below", 0, "exit with status 3 when the attainment against --slo is below this `fraction`, e.g. 0.95")
	fs.Var(&g.failIf, "fail-if", "exit with status 3 when the run meets this `condition`, e.g. 'p99(ttft)>500ms', 'mean(tpot)>=40ms', 'error_rate>0.01', an open loop's 'p99(ttft_from_scheduled)>1s' (repeatable)")
}

// parse reads the conditions, and adds the percentiles they name to the
// report's.
func (g *gate) parse(opt *llmmetrics.Options) error {
	if b := *g.failBelow; b != 0 {
		if !(b > 0 && b <= 1) {
			return fmt.Errorf("%w: --fail-below %v: want a fraction in (0, 1]", errUsage, b)
		}
		if opt.SLO == nil {
			return fmt.Errorf("%w: --fail-below needs --slo: attainment is judged against an SLO", errUsage)
		}
		g.conditions = append(g.conditions, compare.Condition{Text: "attainment<" + strconv.FormatFloat(b, 'g', -1, 64),
			Metric: "attainment", Op: "<", Limit: b})
	}
	for _, text := range g.failIf {
		c, err := compare.ParseCondition(text)
		if err != nil {
			return usageError("fail-if", err)
		}
		if c.Metric == "attainment" && opt.SLO == nil {
			return fmt.Errorf("%w: --fail-if %q needs --slo", errUsage, text)
		}
		if strings.HasPrefix(c.Stat, "p") {
			var p llmmetrics.Percentile
			p.UnmarshalText([]byte(c.Stat[1:]))
			if opt.Percentiles == nil {
				opt.Percentiles = slices.Clone(llmmetrics.DefaultPercentiles)
			}
			if !slices.Contains(opt.Percentiles, p) {
				opt.Percentiles = append(opt.Percentiles, p)
			}
		}
		g.conditions = append(g.conditions, c)
	}
	return nil
}

// check returns an errGate naming every condition the summary crosses.
// When the run's load check warned (lc; nil for none), a condition that
// passed is not taken at its word: see doubt.
func (g *gate) check(s *llmmetrics.Summary, lc *loadCheck) error {
	var failed []string
	var unjudged []error
	for _, c := range g.conditions {
		bad, value, err := c.Check(s)
		if err != nil {
			unjudged = append(unjudged, err)
			continue
		}
		switch {
		case bad:
			failed = append(failed, fmt.Sprintf("%s (it is %s)", c.Text, value))
		case lc != nil:
			if why := lc.doubt(c, value, s); why != "" {
				failed = append(failed, why)
			}
		}
	}
	switch {
	case len(failed) > 0 && len(unjudged) > 0: // crossed, whatever the others would say
		return fmt.Errorf("%w: %s (and %s)", errGate, strings.Join(failed, "; "), errorsSaid(unjudged))
	case len(failed) > 0:
		return fmt.Errorf("%w: %s", errGate, strings.Join(failed, "; "))
	case len(unjudged) > 0:
		return errors.Join(unjudged...)
	}
	return nil
}

// errorsSaid says errs in one line, joined by "; ".
func errorsSaid(errs []error) string {
	said := make([]string, len(errs))
	for i, err := range errs {
		said[i] = err.Error()
	}
	return strings.Join(said, "; ")
}

// doubt says why a condition that passed (at value) does not pass a run
// whose load check warned, or "". Where the figures do not describe the
// load asked for (the server stopped answering, fell behind, or a closed
// loop's failures swamped it), no condition on a latency or a throughput
// passes: only error_rate and attainment, which count every request, are
// judged as they are. Where an open loop's sends lagged their schedule,
// a condition on TTFT or E2E from the send is judged again from the
// scheduled time, and fails when that crosses it.
func (c *loadCheck) doubt(cond compare.Condition, value string, s *llmmetrics.Summary) string {
	if len(c.Warnings) == 0 || cond.Metric == "error_rate" || cond.Metric == "attainment" {
		return ""
	}
	if c.partial != "" {
		return fmt.Sprintf("%s passed (it is %s), but %s: a gate does not pass on figures of a load the server did not take (see the WARNING)", cond.Text, value, c.partial)
	}
	m, _ := metricOf(cond.Metric)
	if !c.late || cond.Stat == "" || m.Scheduled == "" {
		return ""
	}
	due := cond
	due.Metric = m.Scheduled
	bad, dueValue, err := due.Check(s)
	if err != nil || !bad {
		return ""
	}
	return fmt.Sprintf("%s passed from each request's send (it is %s) but not from its scheduled time (%s(%s) is %s): the sends lagged their schedule (see the WARNING)", cond.Text, value, due.Stat, due.Metric, dueValue)
}
