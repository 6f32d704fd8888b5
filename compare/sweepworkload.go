package compare

import (
	"fmt"
	"slices"
	"strings"
)

// workloadKeys are the keys of a run header's load that say what workload
// the run put on the server: its loop and arrivals, its size, its prompt
// and output lengths, its trace, prefixes and sessions. The repeats of one
// level of a sweep must agree on each, or they are not repeats.
var workloadKeys = []string{
	"loop", "burstiness", "max_in_flight", "arrivals", "requests", "duration",
	"prompt_tokens", "max_tokens",
	"replay", "replay_window", "speed", "scale_tokens", "cap_prompt_tokens", "cap_output_tokens",
	"prefix_groups", "prefix_block_tokens", "sessions", "turns", "think_time",
}

// workloadDiffers returns a warning for each way the runs of one level
// differ in the workload their headers declare: the model, the API, and
// each of workloadKeys. Runs without a header declare nothing and are
// not compared.
func workloadDiffers(kind string, level float64, runs []LevelRun) []string {
	var warns []string
	declared := func(name string, value func(LevelRun) string) {
		if w := differs(runs, value); w != "" {
			warns = append(warns, fmt.Sprintf("%s %g: its runs differ in %s (%s): they are not repeats of one workload, and their spread is not noise",
				kind, level, name, w))
		}
	}
	declared("the model", func(r LevelRun) string { return r.header().Model })
	declared("the API", func(r LevelRun) string { return r.header().API })
	for _, k := range workloadKeys {
		declared("the load's "+k, func(r LevelRun) string { return r.header().Load[k] })
	}
	return warns
}

// differs says which runs with a header have which value, when they have
// more than one: "512 in a.jsonl, b.jsonl; 1024 in c.jsonl", "none" for a
// run that does not say; or "" when they agree.
func differs(runs []LevelRun, value func(LevelRun) string) string {
	in := map[string][]string{}
	var order []string
	for _, r := range runs {
		if r.header() == nil {
			continue
		}
		v := value(r)
		if v == "" {
			v = "none"
		}
		if _, seen := in[v]; !seen {
			order = append(order, v)
		}
		in[v] = append(in[v], r.Name)
	}
	if len(in) < 2 {
		return ""
	}
	parts := make([]string, len(order))
	for i, v := range order {
		parts[i] = fmt.Sprintf("%s in %s", v, strings.Join(slices.Compact(in[v]), ", "))
	}
	return strings.Join(parts, "; ")
}
