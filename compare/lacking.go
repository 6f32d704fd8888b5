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
// ("A run 1: no ok record carries a prompt token count").
func lacking(f runFigure, a, b []*llmmetrics.Summary) string {
	var whys []string
	runs := map[string]*[2][]int{} // the runs of each reason, A's and B's
	for side, sums := range [2][]*llmmetrics.Summary{a, b} {
		for i, s := range sums {
			_, why := f.value(s)
			if why == "" {
				continue
			}
			if runs[why] == nil {
				runs[why] = &[2][]int{}
				whys = append(whys, why)
			}
			runs[why][side] = append(runs[why][side], i+1)
		}
	}
	out := make([]string, len(whys))
	for i, why := range whys {
		out[i] = ofRuns(*runs[why], [2]int{len(a), len(b)}, why)
	}
	return strings.Join(out, "; ")
}

// ofRuns is why, said of the runs of each side that it names by number
// ("A runs 1, 3"), or as all of the side's several runs ("all 4 B runs");
// sizes are the sides' numbers of runs.
func ofRuns(runs [2][]int, sizes [2]int, why string) string {
	var names []string
	n := 0
	for side, nums := range runs {
		name := "AB"[side : side+1]
		n += len(nums)
		switch {
		case len(nums) == 0:
			continue
		case len(nums) == sizes[side] && len(nums) > 1:
			names = append(names, "all "+strconv.Itoa(len(nums))+" "+name+" runs")
			continue
		}
		ks := make([]string, len(nums))
		for i, k := range nums {
			ks[i] = strconv.Itoa(k)
		}
		word := " run "
		if len(nums) > 1 {
			word = " runs "
		}
		names = append(names, name+word+strings.Join(ks, ", "))
	}
	who := strings.Join(names, " and ")
	if rest, ok := strings.CutPrefix(why, "the run has "); ok {
		if n > 1 {
			return who + " have " + rest
		}
		return who + " has " + rest
	}
	return who + ": " + why
}
