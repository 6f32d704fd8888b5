package charts

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/llmmetrics/llmmetrics/compare"
)

// SweepPage lays a sweep out as a page: its levels as a table (a row a
// figure with its unit, a column a level, each cell the median ±MAD across
// the level's runs), the environment the runs agree on, the capacity, the
// charts and the notes (notDrawn: the charts left out, with their
// reasons).
func SweepPage(title string, sw *compare.Sweep, c *compare.Capacity, cs []Chart, notes, notDrawn []string) Page {
	levels := Section{Heading: "Levels"}
	levels.Paragraphs = append(levels.Paragraphs, fmt.Sprintf("Per %s level, the median ±MAD (raw) across the level's runs. Latency percentiles are per run, so a row is the median of per-run percentiles, not a percentile of pooled requests.", sw.Kind))
	if sw.SLO != nil {
		levels.Paragraphs = append(levels.Paragraphs, "Attainment: good / offered against SLO "+sw.SLO.String()+", a percentage goodput.")
	}
	t := Table{Head: []string{"figure"}}
	runs := []Cell{{Text: "runs"}}
	for _, lv := range sw.Levels {
		t.Head = append(t.Head, sw.Kind+" "+strconv.FormatFloat(lv.Level, 'g', -1, 64))
		runs = append(runs, Cell{Text: itoa(lv.Runs)})
	}
	t.Rows = append(t.Rows, runs)
	var names []string
	units := map[string]string{}
	for _, lv := range sw.Levels {
		for _, f := range lv.Figures {
			if _, seen := units[f.Name]; !seen {
				names = append(names, f.Name)
				units[f.Name] = f.Unit
			}
		}
	}
	for _, name := range names {
		row := []Cell{{Text: name + " (" + units[name] + ")"}}
		for _, lv := range sw.Levels {
			cell := Cell{Text: "—"}
			if f, ok := lv.Figure(name); ok {
				cell = Cell{Text: strconv.FormatFloat(f.Spread.Median, 'g', 4, 64), Note: "±" + strconv.FormatFloat(f.Spread.MAD, 'g', 2, 64)}
				if f.Spread.N < 2 { // one run: its spread is unknown, not 0
					cell.Note = "±?"
				}
				if f.LowerBound > 0 { // some of the level's runs counted only part of their answers
					cell.Text = "≥" + cell.Text
				}
			}
			row = append(row, cell)
		}
		t.Rows = append(t.Rows, row)
	}
	levels.Tables = append(levels.Tables, t)

	env := Section{Heading: "Environment"}
	if len(sw.Env) == 0 {
		env.Paragraphs = append(env.Paragraphs, "Environment: not recorded.")
	} else {
		et := Table{Caption: "What every run's header agrees on", Head: []string{"key", "value"}}
		for _, k := range slices.Sorted(maps.Keys(sw.Env)) {
			et.Rows = append(et.Rows, []Cell{{Text: k}, {Text: sw.Env[k]}})
		}
		env.Tables = append(env.Tables, et)
	}
	if len(sw.EnvDiffers) > 0 {
		env.Paragraphs = append(env.Paragraphs, "The runs disagree on: "+strings.Join(sw.EnvDiffers, ", ")+".")
	}
	if sw.EnvMissing > 0 {
		env.Paragraphs = append(env.Paragraphs, fmt.Sprintf("%d run(s) recorded no environment.", sw.EnvMissing))
	}

	capacity := Section{Heading: "Capacity"}
	if c == nil {
		capacity.Paragraphs = append(capacity.Paragraphs, "No SLO was given (--slo), so no capacity.")
	} else {
		capacity.Paragraphs = append(capacity.Paragraphs, fmt.Sprintf("DistServe's framing, median attainment ≥ %g: %s.", c.Target, c.Reason))
		mt := Table{Head: []string{sw.Kind, "attainment (fraction)", "margin over the target"}}
		for _, m := range c.Margins {
			mt.Rows = append(mt.Rows, []Cell{{Text: strconv.FormatFloat(m.Level, 'g', -1, 64)}, {Text: strconv.FormatFloat(m.Attainment, 'g', 4, 64)},
				{Text: strconv.FormatFloat(m.Margin, 'f', 4, 64)}})
		}
		if len(mt.Rows) > 0 {
			capacity.Tables = append(capacity.Tables, mt)
		}
	}
	var all []string
	for _, w := range sw.Warnings {
		all = append(all, "Warning: "+w+".")
	}
	all = append(all, notes...)
	for _, n := range notDrawn {
		all = append(all, "Chart "+n+".")
	}
	return Page{Title: title, Sections: []Section{levels, capacity, {Heading: "Throughput and latency", Charts: cs}, env, {Heading: "Notes", Paragraphs: all}}}
}
