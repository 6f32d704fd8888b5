package main

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/llmmetrics/llmmetrics/compare"
	"github.com/llmmetrics/llmmetrics/drive"
	"github.com/llmmetrics/llmmetrics/internal/plural"
)

// interruptedProbe says whether a search's probe was cut short: its
// attainment covers only the requests it ran, so it is no verdict.
func interruptedProbe(pr drive.Probe) bool {
	return pr.Outcome != nil && pr.Outcome.Interrupted
}

// A searchStop is what stopped a search (an interrupt's name, "" for
// none) and the requests each probe planned (0 for probes of a duration).
type searchStop struct {
	by      string
	planned int
}

// interruptedProbeLine is the probe line of a probe cut short, in place
// of its attainment and verdict.
func interruptedProbeLine(kind string, pr drive.Probe, stop searchStop) string {
	sent := plural.Of(len(pr.Outcome.Results), "request")
	if stop.planned > 0 {
		sent = fmt.Sprintf("%d of %s", len(pr.Outcome.Results), plural.Of(stop.planned, "request"))
	}
	return fmt.Sprintf("%s %-8g INTERRUPTED by %s after %s: no verdict (its attainment covers only the part run)",
		kind, pr.Level, cmp.Or(stop.by, "an interrupt"), sent)
}

// probesPlanned is the requests each probe of plan p plans, warm-up
// included; 0 for probes of a duration.
func probesPlanned(p drive.Plan) int {
	if p.Requests == 0 {
		return 0
	}
	return p.Requests + p.Warmup.Requests
}

// readSearchEnd reads how a search ended, err being SearchCapacity's, into
// out: it returns the error of a search it could not run (a usage error),
// and that of a search a probe stopped with no verdict, which is reported
// first (see endUndecided); an interrupted one is read by endInterrupted.
func readSearchEnd(out *drive.SearchOutcome, s drive.Search, err error, by string) (usage, noVerdict error) {
	switch {
	case errors.Is(err, drive.ErrNoVerdict):
		endUndecided(out, s, strings.TrimPrefix(trimPrefix(err), "no verdict: "))
		return nil, fmt.Errorf("run: %s", trimPrefix(err))
	case err != nil:
		return fmt.Errorf("%w: %s", errUsage, trimPrefix(err)), nil
	}
	endInterrupted(out, s, by)
	return nil, nil
}

// endInterrupted reads the bracket of an interrupted search from its
// completed probes alone, as drive reads it from the medians at each end,
// and says so in out.Reason: the probe cut short is no verdict. It leaves
// a search that was not interrupted as it is.
func endInterrupted(out *drive.SearchOutcome, s drive.Search, by string) {
	if out == nil || !out.Interrupted {
		return
	}
	by = cmp.Or(by, "an interrupt")
	cut := len(out.Probes)
	for i, pr := range out.Probes {
		if interruptedProbe(pr) {
			cut = i + 1
			break
		}
	}
	endEarly(out, s, fmt.Sprintf("the search was INTERRUPTED by %s during probe %d, which gives no verdict", by, cut))
}

// endUndecided reads the bracket of a search that stopped at a probe
// whose attainment could not be judged (why) from the probes before it,
// as endInterrupted does.
func endUndecided(out *drive.SearchOutcome, s drive.Search, why string) {
	endEarly(out, s, fmt.Sprintf("the search STOPPED at probe %d, which gives no verdict (%s)", len(out.Probes)+1, why))
}

// endEarly reads the bracket of a search that ended early, as head says,
// from its completed probes.
func endEarly(out *drive.SearchOutcome, s drive.Search, head string) {
	attainments := map[float64][]float64{}
	completed := 0
	for _, pr := range out.Probes {
		if !interruptedProbe(pr) {
			attainments[pr.Level] = append(attainments[pr.Level], pr.Attainment)
			completed++
		}
	}
	out.Passing, out.Failing = nil, nil
	if completed == 0 {
		out.Reason = head + "; no probe before it completed, so there is no bracket"
		return
	}
	head += fmt.Sprintf("; from the %s: ", plural.Of(completed, "completed probe"))
	median := func(level float64) string {
		sp, _ := compare.MedianMAD(attainments[level])
		return fmt.Sprintf("median attainment %.4g over %s", sp.Median, plural.Of(len(attainments[level]), "run"))
	}
	// The highest level whose median meets the target, and the lowest
	// whose median misses it.
	lo, hi := math.NaN(), math.NaN()
	for _, level := range slices.Sorted(maps.Keys(attainments)) {
		sp, _ := compare.MedianMAD(attainments[level])
		if sp.Median >= s.Target {
			lo = level
		} else if math.IsNaN(hi) {
			hi = level
		}
	}
	switch {
	case math.IsNaN(hi):
		out.Passing = &lo
		out.Reason = head + fmt.Sprintf("the capacity is at least %s %g (%s), the highest level probed that meets the target; no completed probe missed it", s.Kind, lo, median(lo))
	case math.IsNaN(lo):
		out.Failing = &hi
		out.Reason = head + fmt.Sprintf("the capacity is below %s %g (%s), the lowest level probed, which misses the target; no completed probe met it", s.Kind, hi, median(hi))
	case lo < hi:
		out.Passing, out.Failing = &lo, &hi
		out.Reason = head + fmt.Sprintf("the capacity lies between %s %g (%s) and %g (%s)", s.Kind, lo, median(lo), hi, median(hi))
	default:
		out.Reason = head + fmt.Sprintf("they give no bracket: %s %g misses the target (%s) but %g above it meets it (%s)", s.Kind, hi, median(hi), lo, median(lo))
	}
	short := func(p *float64) bool { return p != nil && len(attainments[*p]) < s.Repeats }
	if short(out.Passing) || short(out.Failing) {
		out.Reason += fmt.Sprintf("; not confirmed by the %d repeats at each end that a finished search runs", s.Repeats)
	}
}
