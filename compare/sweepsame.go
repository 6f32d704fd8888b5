package compare

import (
	"fmt"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/internal/samerun"
)

// sameRuns warns of runs among repeats that are one run given twice under
// two names (a copy of a file, a file and its conversion; see
// samerun.Why). Repeats that are copies fake a spread of 0. of names the
// repeats ("A", "concurrency 4"); names are the runs', in runs' order.
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

// sameRun says why two runs are one, or "" (samerun.Why).
func sameRun(a, b *llmmetrics.Run) string { return samerun.Why(a, b) }

// sidesSameRun warns of a run of A that is a run of B: a row then
// compares the run with itself, by construction no change, which is no
// evidence that two runs agree. Of one run a side: "A and B are the same
// run".
func sidesSameRun(a, b []*llmmetrics.Run, namesA, namesB []string) []string {
	var warns []string
	for i, ra := range a {
		for j, rb := range b {
			why := sameRun(ra, rb)
			switch {
			case why == "":
			case len(a) == 1 && len(b) == 1:
				warns = append(warns, fmt.Sprintf("A and B are the same run: %s (%s and %s); every row compares the run with itself", why, nameAt(namesA, 0), nameAt(namesB, 0)))
			default:
				warns = append(warns, fmt.Sprintf("A run %d and B run %d are the same run: %s (%s and %s); the run is compared with itself", i+1, j+1, why, nameAt(namesA, i), nameAt(namesB, j)))
			}
		}
	}
	return warns
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
