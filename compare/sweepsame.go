package compare

import (
	"fmt"
	"reflect"

	"github.com/llmmetrics/llmmetrics"
)

// sameRuns warns of runs among repeats that are one run given twice under
// two names (a copy of a file): their headers are identical, start to the
// nanosecond and load and all, or, for runs without a header, their
// records are. Repeats that are copies fake a spread of 0. of names
// the repeats ("A", "concurrency 4"); names are the runs', in runs' order.
func sameRuns(of string, runs []*llmmetrics.Run, names []string) []string {
	var warns []string
	for i, r := range runs {
		for j, o := range runs[:i] {
			if why := sameRun(o, r); why != "" {
				warns = append(warns, fmt.Sprintf("%s runs %d and %d are the same run: %s (%s and %s); a copy as a repeat fakes a spread of 0",
					of, j+1, i+1, why, nameAt(names, j), nameAt(names, i)))
				break
			}
		}
	}
	return warns
}

// sameRun says why two runs are one, or "".
func sameRun(a, b *llmmetrics.Run) string {
	if a == nil || b == nil {
		return ""
	}
	if ha, hb := a.Header, b.Header; ha != nil && hb != nil && !ha.Start.IsZero() && reflect.DeepEqual(*ha, *hb) {
		return "identical headers"
	}
	if a.Header == nil && b.Header == nil && len(a.Records) > 0 && reflect.DeepEqual(a.Records, b.Records) {
		return "identical records"
	}
	return ""
}

// nameAt is names[i], or "run i+1" where names has none.
func nameAt(names []string, i int) string {
	if i < len(names) && names[i] != "" {
		return names[i]
	}
	return fmt.Sprintf("run %d", i+1)
}

// sameLevelRuns warns of a level's runs that are one run twice.
func sameLevelRuns(kind string, level float64, runs []LevelRun) []string {
	rs, names := make([]*llmmetrics.Run, len(runs)), make([]string, len(runs))
	for i, r := range runs {
		rs[i], names[i] = r.Run, r.Name
	}
	return sameRuns(fmt.Sprintf("%s %g", kind, level), rs, names)
}
