package charts

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/llmmetrics/llmmetrics"
)

// ReportPage lays a report out as a page: the run and its environment, the
// workload, the latencies, the throughput, the goodput, the server side,
// the notes and the records set aside, each a section of tables in units
// named in their headers, with the charts among them (by their names:
// the latency charts under the latencies, the timeline under the
// throughput, the decomposition under the server side). notDrawn are the
// charts left out, with their reasons.
func ReportPage(title string, s *llmmetrics.Summary, cs []Chart, notDrawn []string) Page {
	byPlace := map[string][]Chart{}
	for _, c := range cs {
		place := "latency"
		switch c.Name {
		case "timeline":
			place = "throughput"
		case "decomposition":
			place = "server"
		}
		byPlace[place] = append(byPlace[place], c)
	}
	p := Page{Title: title}
	p.Sections = append(p.Sections, runSection(s), workloadSection(s.Workload), latencySection(s, byPlace["latency"]),
		throughputSection(s, byPlace["throughput"]), goodputSection(s.Goodput), serverSection(byPlace["server"]),
		notesSection(s, notDrawn), setAsideSection(s))
	return p
}

func runSection(s *llmmetrics.Summary) Section {
	sec := Section{Heading: "Run and environment"}
	if h := s.Header; h != nil {
		t := Table{Caption: "How the run was taken", Head: []string{"key", "value"}}
		add := func(k, v string) {
			if v != "" {
				t.Rows = append(t.Rows, []Cell{{Text: k}, {Text: v}})
			}
		}
		add("tool", h.Tool)
		add("target", h.Target)
		add("API", h.API)
		add("model", h.Model)
		if !h.Start.IsZero() {
			add("started", h.Start.UTC().Format(time.RFC3339))
		}
		for _, k := range slices.Sorted(maps.Keys(h.Load)) {
			add("load: "+k, h.Load[k])
		}
		for _, k := range slices.Sorted(maps.Keys(h.Env)) {
			add("environment: "+k, h.Env[k])
		}
		sec.Tables = append(sec.Tables, t)
		if len(h.Env) == 0 {
			sec.Paragraphs = append(sec.Paragraphs, "Environment: not recorded.")
		}
	} else {
		sec.Paragraphs = append(sec.Paragraphs, "Environment: not recorded (the records carry no run header).")
	}
	a := s.Requests
	sec.Tables = append(sec.Tables, Table{
		Caption: "Every request offered, in exactly one category",
		Head:    []string{"offered", "ok", "zero-token", "failed", "of which error / timeout / cancelled", "rejected", "warm-up (not measured)", "ok with one token (no TPOT)"},
		Rows: [][]Cell{{{Text: itoa(a.Offered)}, {Text: itoa(a.OK)}, {Text: itoa(a.ZeroToken)}, {Text: itoa(a.Failed)},
			{Text: fmt.Sprintf("%d / %d / %d", a.Errors, a.Timeouts, a.Cancelled)}, {Text: itoa(a.Rejected)}, {Text: itoa(a.Warmup)}, {Text: itoa(a.OneToken)}}},
	})
	if a.Preflight > 0 { // a column only when there are some, as the text report says them
		t := &sec.Tables[len(sec.Tables)-1]
		t.Head = slices.Insert(t.Head, 7, "preflight (not measured)")
		t.Rows[0] = slices.Insert(t.Rows[0], 7, Cell{Text: itoa(a.Preflight)})
	}
	if a.Unfinished > 0 { // as preflight, before the one-token column
		t := &sec.Tables[len(sec.Tables)-1]
		i := len(t.Head) - 1
		t.Head = slices.Insert(t.Head, i, "unfinished at the run's end (not measured, not failed)")
		t.Rows[0] = slices.Insert(t.Rows[0], i, Cell{Text: itoa(a.Unfinished)})
	}
	if u := a.Uncounted; u.Total() > 0 { // said only when there are some, as the text report does
		sec.Paragraphs = append(sec.Paragraphs, fmt.Sprintf("No token count: %d ok requests (%d no usage, %d usage of zero, %d count below the chunks): "+
			"in TTFT, E2E and the gaps; not in TPOT, the token rates or the TPOT limit.", u.Total(), u.NoUsage, u.ZeroUsage, u.BelowChunks))
	}
	if c := s.Warmup; c != nil {
		if !c.Steady && a.Warmup == 0 {
			sec.Paragraphs = append(sec.Paragraphs, "Warm-up not found: "+c.Reason+"; nothing was set aside, so the figures may include a warm-up.")
		} else {
			sec.Paragraphs = append(sec.Paragraphs, "Warm-up: "+c.Reason+".")
		}
	}
	return sec
}

func workloadSection(wl *llmmetrics.Workload) Section {
	sec := Section{Heading: "Workload"}
	if wl == nil {
		return sec
	}
	t := Table{Caption: "Lengths of the measured ok requests", Head: []string{"tokens", "n", "p50", "p95", "max"}}
	for _, l := range []struct {
		name string
		l    *llmmetrics.Lengths
	}{{"prompt", wl.Prompt}, {"output", wl.Output}} {
		if l.l != nil {
			t.Rows = append(t.Rows, []Cell{{Text: l.name}, {Text: itoa(l.l.N)}, {Text: itoa(l.l.P50)}, {Text: itoa(l.l.P95)}, {Text: itoa(l.l.Max)}})
		}
	}
	if len(t.Rows) > 0 {
		sec.Tables = append(sec.Tables, t)
	}
	if a := wl.Arrivals; a != nil {
		sec.Paragraphs = append(sec.Paragraphs, fmt.Sprintf("Arrivals: %d gaps between sends, mean %.3f ms, coefficient of variation %.2f (%s; Poisson gives 1).", a.Gaps, msf(a.Mean), a.CV, a.Reading))
	}
	if c := wl.Concurrency; c != nil {
		sec.Paragraphs = append(sec.Paragraphs, fmt.Sprintf("In flight (ok requests, send to last text, weighted by time over %.3f s): mean %.2f, p50 %d, max %d.", c.Span.Seconds(), c.Mean, c.P50, c.Max))
	}
	if e := wl.EarlyStop; e != nil {
		sec.Paragraphs = append(sec.Paragraphs, fmt.Sprintf("Early stop: %d of %d ok requests with a known max_tokens ended before it (%.1f%%).", e.Early, e.Known, 100*e.Rate))
	}
	return sec
}

func latencySection(s *llmmetrics.Summary, cs []Chart) Section {
	sec := Section{Heading: "Latency", Charts: cs}
	type row struct {
		name string
		d    *llmmetrics.Distribution
	}
	var rows []row
	// The catalogue's metrics but the client's, by their names.
	for _, m := range llmmetrics.Metrics() {
		d := m.Distribution(s)
		if d == nil || m.Client {
			continue
		}
		name := m.Name
		if s.ITL != nil && d == &s.ITL.Distribution {
			name += " (" + s.ITL.Basis.String() + " gaps)"
		}
		rows = append(rows, row{name, d})
	}
	if c := s.Client; c != nil {
		for _, r := range []row{{"first answer", c.FirstAnswer}, {"client wait", c.Wait}, {"lateness", c.Lateness}} {
			if r.d != nil {
				rows = append(rows, r)
			}
		}
	}
	if len(rows) > 0 {
		t := Table{Caption: "Latencies of the ok requests; the request holding a percentile's value beside it", Head: []string{"metric", "n", "mean (ms)", "std (ms)", "min (ms)"}}
		for _, p := range s.Percentiles {
			t.Head = append(t.Head, p.Key()+" (ms)")
		}
		t.Head = append(t.Head, "max (ms)")
		for _, r := range rows {
			d := r.d
			cells := []Cell{{Text: r.name}, {Text: itoa(d.N)}, {Text: fixedMS(d.Mean)}, {Text: fixedMS(d.Std)}, {Text: fixedMS(d.Min)}}
			for _, pt := range d.Points {
				cells = append(cells, Cell{Text: fixedMS(pt.Value), Note: pt.ID})
			}
			cells = append(cells, Cell{Text: fixedMS(d.Max)})
			t.Rows = append(t.Rows, cells)
		}
		sec.Tables = append(sec.Tables, t)
	}
	if st := s.Strata; st != nil && len(s.Percentiles) > 0 {
		sec.Tables = append(sec.Tables, strataTable(st, s.Percentiles))
	}
	conv := "Percentiles: " + s.Method.String()
	if s.Method == llmmetrics.NearestRank {
		conv += " (the value at rank ⌈p·N/100⌉, a real request)"
	} else {
		conv += " (Hyndman–Fan type 7, as numpy and vLLM)"
	}
	conv += "; the mean of TTFT, TPOT and E2E is over requests; std is the population standard deviation."
	sec.Paragraphs = append(sec.Paragraphs, conv)
	if s.TPOT != nil {
		sec.Paragraphs = append(sec.Paragraphs, fmt.Sprintf("TPOT: (t_last − t_first)/(n − 1) with n from usage; mean over gaps %.3f ms; %d one-token requests excluded.", msf(s.TPOT.GapWeightedMean), s.TPOT.Excluded))
	}
	if it := s.ITL; it != nil {
		p := fmt.Sprintf("ITL: over gaps, pooled over %d requests with chunk arrivals: %d had one chunk per token, %d did not", it.TokenBasis+it.ChunkBasis, it.TokenBasis, it.ChunkBasis)
		if it.ChunkBasis > 0 {
			p += " (their gaps are chunk gaps: the per-token gap distribution is unknown)"
		}
		if it.NoChunks > 0 {
			p += fmt.Sprintf("; %d without chunk arrivals", it.NoChunks)
		}
		sec.Paragraphs = append(sec.Paragraphs, p+".")
	}
	return sec
}

// strataTable lays the latencies by length out as the text report does:
// the lowest and the highest percentile asked, of TTFT, TPOT and E2E, in
// each stratum; a dash where a stratum has no such value.
func strataTable(st *llmmetrics.Strata, ps []llmmetrics.Percentile) Table {
	lo, hi := ps[0], ps[len(ps)-1]
	t := Table{Caption: fmt.Sprintf("Latency by %s length, over ok requests (%d measured requests that are not ok are in no stratum)", st.By, st.Unstratified),
		Head: []string{"stratum", "n"}}
	var headline []llmmetrics.Metric
	for _, m := range llmmetrics.Metrics() {
		if m.Headline {
			headline = append(headline, m)
			t.Head = append(t.Head, m.Name+" "+lo.Key()+" (ms)", m.Name+" "+hi.Key()+" (ms)")
		}
	}
	for _, x := range st.Strata {
		row := []Cell{{Text: x.String()}, {Text: itoa(x.Requests)}}
		for _, m := range headline {
			d := m.Distribution(x.Summary)
			for _, p := range []llmmetrics.Percentile{lo, hi} {
				c := Cell{Text: "—"}
				if d != nil {
					if v, ok := d.At(p); ok {
						c.Text = fixedMS(v)
					}
				}
				row = append(row, c)
			}
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

func throughputSection(s *llmmetrics.Summary, cs []Chart) Section {
	sec := Section{Heading: "Throughput", Charts: cs}
	t := s.Throughput
	if t == nil {
		if why, ok := s.Absent["throughput"]; ok {
			sec.Paragraphs = append(sec.Paragraphs, "Throughput: absent, "+why+".")
		}
		return sec
	}
	kind := "first send to last text chunk"
	if t.Window.Declared {
		kind = "declared"
	}
	tab := Table{Caption: fmt.Sprintf("Over %.3f s (%s), counting %d ok requests", t.Window.Length.Seconds(), kind, t.Requests),
		Head: []string{"rate", "per second", "count"}}
	noOutput, absent := s.Absent["output_tokens_per_s"]
	switch {
	case absent:
		sec.Paragraphs = append(sec.Paragraphs, "Output tokens/s: absent, "+noOutput+".")
	case t.LowerBound():
		tab.Rows = append(tab.Rows, []Cell{{Text: fmt.Sprintf("output tokens (a lower bound: %d of %d ok requests counted)", t.CountedRequests, t.Requests)},
			{Text: "≥" + f3(float64(t.OutputTokensPerSecond))}, {Text: "≥" + strconv.FormatInt(t.OutputTokens, 10)}})
	default:
		tab.Rows = append(tab.Rows, []Cell{{Text: "output tokens"}, {Text: f3(float64(t.OutputTokensPerSecond))}, {Text: strconv.FormatInt(t.OutputTokens, 10)}})
	}
	switch {
	case t.PromptLowerBound():
		tab.Rows = append(tab.Rows, []Cell{{Text: fmt.Sprintf("prompt tokens (never add to output; a lower bound: %d of %d ok requests counted)", t.PromptCountedRequests, t.Requests)},
			{Text: "≥" + f3(float64(t.PromptTokensPerSecond))}, {Text: "≥" + strconv.FormatInt(t.PromptTokens, 10)}})
	case t.PromptTokens > 0:
		tab.Rows = append(tab.Rows, []Cell{{Text: "prompt tokens (never add to output)"}, {Text: f3(float64(t.PromptTokensPerSecond))}, {Text: strconv.FormatInt(t.PromptTokens, 10)}})
	}
	tab.Rows = append(tab.Rows, []Cell{{Text: "requests"}, {Text: f3(float64(t.RequestsPerSecond))}, {Text: itoa(t.Requests)}})
	sec.Tables = append(sec.Tables, tab)
	if t.PromptTokens == 0 {
		sec.Paragraphs = append(sec.Paragraphs, "Prompt tokens/s: absent, no ok record carries a prompt token count.")
	}
	return sec
}

func goodputSection(g *llmmetrics.Goodput) Section {
	sec := Section{Heading: "Goodput"}
	if g == nil {
		sec.Paragraphs = append(sec.Paragraphs, "No SLO was given (--slo), so no goodput.")
		return sec
	}
	tab := Table{Caption: "Against SLO " + g.SLO.String() + ", judged jointly per request", Head: []string{"figure", "value"}}
	tab.Rows = append(tab.Rows, []Cell{{Text: "attainment (good / offered)"}, {Text: fmt.Sprintf("%d / %d = %.2f%%", g.Good, g.Offered, 100*g.Attainment)}})
	if g.WindowErr == nil {
		tab.Rows = append(tab.Rows, []Cell{{Text: "goodput (good requests/s)"}, {Text: f3(float64(g.RequestsPerSecond))}})
	} else {
		tab.Rows = append(tab.Rows, []Cell{{Text: "goodput (good requests/s)"}, {Text: "absent: " + strings.TrimPrefix(g.WindowErr.Error(), llmmetrics.ErrInvalidWindow.Error()+": ")}})
	}
	tab.Rows = append(tab.Rows, []Cell{{Text: "ok requests failing TTFT / TPOT / E2E / largest gap"}, {Text: fmt.Sprintf("%d / %d / %d / %d", g.FailedTTFT, g.FailedTPOT, g.FailedE2E, g.FailedMaxGap)}})
	sec.Tables = append(sec.Tables, tab)
	sec.Paragraphs = append(sec.Paragraphs, fmt.Sprintf("Failed, zero-token and rejected requests stay in the denominator; the TPOT limit does not apply to %d requests without a time per token (one token, text at once, or no count but max_tokens 1).", g.TPOTNotApplicable))
	return sec
}

func serverSection(cs []Chart) Section {
	sec := Section{Heading: "Server side", Charts: cs}
	if len(cs) == 0 {
		sec.Paragraphs = append(sec.Paragraphs, "No server timings were given: llmmetrics run --timings records them, and report --timings draws each request's TTFT by part.")
	}
	return sec
}

func notesSection(s *llmmetrics.Summary, notDrawn []string) Section {
	sec := Section{Heading: "Notes", Paragraphs: slices.Clone(s.Notes)}
	for _, k := range slices.Sorted(maps.Keys(s.Absent)) {
		sec.Paragraphs = append(sec.Paragraphs, fmt.Sprintf("Absent: %s (%s).", k, s.Absent[k]))
	}
	for _, n := range notDrawn {
		sec.Paragraphs = append(sec.Paragraphs, "Chart "+n+".")
	}
	return sec
}

func setAsideSection(s *llmmetrics.Summary) Section {
	sec := Section{Heading: "Set aside"}
	a := s.Requests
	if a.Rejected == 0 {
		return sec
	}
	sec.Paragraphs = append(sec.Paragraphs, fmt.Sprintf("%d of %d records were rejected as invalid: counted, never measured.", a.Rejected, a.Offered))
	t := Table{Head: []string{"line", "record (from 1)", "id", "field", "reason"}}
	for _, e := range s.Rejected {
		line, index := "", ""
		if e.Line > 0 {
			line = itoa(e.Line)
		}
		if e.Index >= 0 {
			index = itoa(e.Index + 1)
		}
		reason := ""
		if e.Err != nil {
			reason = strings.TrimPrefix(e.Err.Error(), "llmmetrics: ")
		}
		t.Rows = append(t.Rows, []Cell{{Text: line}, {Text: index}, {Text: e.ID}, {Text: e.Field}, {Text: reason}})
	}
	sec.Tables = append(sec.Tables, t)
	if more := a.Rejected - len(s.Rejected); more > 0 {
		sec.Paragraphs = append(sec.Paragraphs, fmt.Sprintf("And %d more, counted but not listed.", more))
	}
	return sec
}

func itoa(n int) string { return strconv.Itoa(n) }

func msf(d time.Duration) float64 { return millis(d) }

func fixedMS(d time.Duration) string { return strconv.FormatFloat(millis(d), 'f', 3, 64) }

func f3(v float64) string { return strconv.FormatFloat(v, 'f', 3, 64) }
