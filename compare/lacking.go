package compare

import (
	"strconv"
	"strings"

	"github.com/llmmetrics/llmmetrics"
)

// lacking says which runs of the two sides lack the figure, and why, or
// "" when every run has it: each reason once, after the runs it is of,
// A's first. A reason about "the run" takes their names for its subject
// ("B runs 1, 3 have no throughput window: …"); another follows them
// ("A run 1: no ok record carries a prompt token count"). A run is named
// by its number, then its name where names (A's and B's) give one.
func lacking(f runFigure, a, b []*llmmetrics.Summary, names [2][]string) string {
	var whys []string
	runs := map[string]*[2][]int{} // the runs of each reason, A's and B's
	for side, sums := range [2][]*llmmetrics.Summary{a, b} {
		for i, s := range sums {
			_, why := f.value(s)
			if why == "" {
				continue
			}
			why = withoutWindowAdvice(why)
			if runs[why] == nil {
				runs[why] = &[2][]int{}
				whys = append(whys, why)
			}
			runs[why][side] = append(runs[why][side], i+1)
		}
	}
	out := make([]string, len(whys))
	for i, why := range whys {
		out[i] = ofRuns(*runs[why], [2]int{len(a), len(b)}, names, why)
	}
	return strings.Join(out, "; ")
}

// ofRuns is why, said of the runs of each side that it names by number
// ("A runs 1, 3", or "A runs 1 (a1.jsonl), 3 (a3.jsonl)" with names), or
// as all of the side's several runs ("all 4 B runs"); sizes are the
// sides' numbers of runs.
func ofRuns(runs [2][]int, sizes [2]int, names [2][]string, why string) string {
	var who []string
	n := 0
	for side, nums := range runs {
		name := "AB"[side : side+1]
		n += len(nums)
		switch {
		case len(nums) == 0:
			continue
		case len(nums) == sizes[side] && len(nums) > 1:
			who = append(who, "all "+strconv.Itoa(len(nums))+" "+name+" runs")
			continue
		}
		ks := make([]string, len(nums))
		for i, k := range nums {
			ks[i] = runLabel(k, names[side])
		}
		word := " run "
		if len(nums) > 1 {
			word = " runs "
		}
		who = append(who, name+word+strings.Join(ks, ", "))
	}
	subject := strings.Join(who, " and ")
	if rest, ok := strings.CutPrefix(why, "the run has "); ok {
		if n > 1 {
			return subject + " have " + rest
		}
		return subject + " has " + rest
	}
	return subject + ": " + why
}

// windowAdvice is how a summary's reason for a missing window ends: its
// advice to declare one, which report and the library take but diff and
// sweep, reading each file's own window, do not.
const windowAdvice = "; declare one (report --window; Options.Window in Go)"

// withoutWindowAdvice is why without windowAdvice, for a comparison.
func withoutWindowAdvice(why string) string {
	if i := strings.Index(why, windowAdvice); i >= 0 {
		return why[:i] + why[i+len(windowAdvice):]
	}
	return why
}
