package llmmetrics

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/llmmetrics/llmmetrics/internal/inflight"
	"github.com/llmmetrics/llmmetrics/internal/jsonobj"
	"github.com/llmmetrics/llmmetrics/internal/plural"
	"github.com/llmmetrics/llmmetrics/internal/texttable"
)

// This file renders a Summary for people (WriteTable) and for programs
// (MarshalJSON). It is the only place where durations become milliseconds
// and windows become seconds.

func millis(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// fmtMillis writes d in milliseconds with three decimals, as the tables do.
func fmtMillis(d time.Duration) string { return fmt.Sprintf("%.3f", millis(d)) }

// field and object build JSON objects whose keys keep their order.
type (
	field  = jsonobj.Field
	object = jsonobj.Object
)

// MarshalJSON writes the summary as one JSON object: latencies in
// milliseconds under keys ending in _ms, the window in seconds, rates per
// second, and the percentile method and every count alongside. Sections
// with no data are left out and explained under "absent".
func (s *Summary) MarshalJSON() ([]byte, error) {
	a := s.Requests
	o := object{
		{"percentile_method", s.Method.String()},
		{"requests", requestsObject(a)},
	}
	for _, m := range catalogue {
		if d := m.Distribution(s); d != nil && !m.Client {
			o = append(o, field{m.jsonKey(), distObject(d, s.jsonDetail(m))})
		}
	}
	if c := s.Client; c != nil {
		if co := s.clientObject(c); len(co) > 0 { // facts without a figure: none
			o = append(o, field{"client", co})
		}
	}
	if t := s.Throughput; t != nil {
		_, noOutput := s.Absent["output_tokens_per_s"]
		o = append(o, field{"throughput", throughputObject(t, noOutput)})
	}
	if g := s.Goodput; g != nil {
		o = append(o, field{"goodput", goodputObject(g)})
	}
	if len(s.Rejected) > 0 {
		rej := make([]object, len(s.Rejected))
		for i, e := range s.Rejected {
			rej[i] = object{{"index", e.Index}, {"line", e.Line}, {"id", e.ID}, {"field", e.Field}, {"error", e.Error()}}
		}
		o = append(o, field{"rejected", rej})
		if more := a.Rejected - len(s.Rejected); more > 0 {
			o = append(o, field{"rejected_unlisted", more})
		}
	}
	if len(s.Absent) > 0 {
		o = append(o, field{"absent", s.Absent})
	}
	if len(s.Notes) > 0 {
		o = append(o, field{"notes", s.Notes})
	}
	if wl := s.Workload; wl != nil {
		o = append(o, field{"workload", workloadObject(wl)})
	}
	if st := s.Strata; st != nil {
		o = append(o, field{"strata", strataObject(st)})
	}
	if c := s.Warmup; c != nil {
		o = append(o, field{"warmup_cut", object{{"steady", c.Steady}, {"start_ms", millis(c.Start)}, {"reason", c.Reason}}})
	}
	if c := s.Completeness; c != nil {
		o = append(o, field{"completeness", completenessObject(c)})
	}
	if s.Header != nil {
		o = append(o, field{"run", s.Header})
	} else {
		o = append(o, field{"environment", "not recorded (the records carry no run header)"})
	}
	return json.Marshal(o)
}

// requestsObject is the accounting in JSON.
func requestsObject(a Accounting) object {
	req := object{
		{"offered", a.Offered}, {"ok", a.OK}, {"failed", a.Failed}, {"zero_token", a.ZeroToken},
		{"one_token", a.OneToken}, {"rejected", a.Rejected}, {"warmup", a.Warmup},
		{"errors", a.Errors}, {"timeouts", a.Timeouts}, {"cancelled", a.Cancelled},
	}
	if a.Preflight > 0 {
		// Written only when there are some, as no_count: a category of its
		// own, so that offered is the sum of ok, zero_token, failed,
		// rejected, warmup and preflight.
		req = append(req, field{"preflight", a.Preflight})
	}
	if a.Unfinished > 0 {
		// Written only when there are some, as preflight.
		req = append(req, field{"unfinished", a.Unfinished})
	}
	if u := a.Uncounted; u.Total() > 0 {
		// Written only when there are some, so that the output of a run
		// whose every request was counted is as it was.
		req = append(req, field{"no_count", object{
			{"total", u.Total()}, {"no_usage", u.NoUsage}, {"zero_usage", u.ZeroUsage}, {"below_chunks", u.BelowChunks},
		}})
	}
	if a.Unstreamed > 0 {
		// Written only when there are some, as no_count.
		req = append(req, field{"unstreamed", a.Unstreamed})
	}
	return req
}

// clientObject is the client-side distributions in JSON.
func (s *Summary) clientObject(c *ClientStats) object {
	co := object{}
	for _, f := range []field{{"first_answer_ms", c.FirstAnswer}, {"wait_ms", c.Wait}, {"lateness_ms", c.Lateness}} {
		if d := f.V.(*Distribution); d != nil {
			co = append(co, field{f.K, distObject(d, nil)})
		}
	}
	for _, m := range catalogue {
		if d := m.Distribution(s); d != nil && m.Client {
			co = append(co, field{m.jsonKey(), distObject(d, nil)})
		}
	}
	if c.ReasoningRequests > 0 { // where no answer said any, unknown: absent, not 0
		co = append(co, field{"reasoning_tokens", c.ReasoningTokens}, field{"reasoning_requests", c.ReasoningRequests})
	}
	return co
}

// throughputObject is the throughput in JSON. An output rate no request
// has a count for (noOutput) is left out with its tokens, and said so
// under "absent"; one that leaves some out is marked a lower bound, with
// the requests it counts, and so is a prompt rate that leaves some out.
func throughputObject(t *Throughput, noOutput bool) object {
	th := object{
		{"window_s", t.Window.Length.Seconds()},
		{"window_declared", t.Window.Declared},
	}
	if !noOutput {
		th = append(th, field{"output_tokens_per_s", float64(t.OutputTokensPerSecond)})
	}
	if t.LowerBound() {
		th = append(th, field{"output_tokens_lower_bound", true}, field{"output_tokens_requests", t.CountedRequests})
	}
	if t.PromptTokens > 0 { // otherwise absent, and said so under "absent"
		th = append(th, field{"prompt_tokens_per_s", float64(t.PromptTokensPerSecond)})
	}
	if t.PromptLowerBound() {
		th = append(th, field{"prompt_tokens_lower_bound", true}, field{"prompt_tokens_requests", t.PromptCountedRequests})
	}
	th = append(th, field{"requests_per_s", float64(t.RequestsPerSecond)})
	if !noOutput {
		th = append(th, field{"output_tokens", t.OutputTokens})
	}
	if t.PromptTokens > 0 {
		th = append(th, field{"prompt_tokens", t.PromptTokens})
	}
	return append(th, field{"requests", t.Requests})
}

// goodputObject is the goodput in JSON.
func goodputObject(g *Goodput) object {
	slo, failed := object{}, object{}
	for i, l := range g.SLO.limits() {
		if l.limit > 0 {
			slo = append(slo, field{l.name + "_ms", millis(l.limit)})
		}
		failed = append(failed, field{l.name, g.failed()[i]})
	}
	cmp := "inclusive"
	if g.SLO.Strict {
		cmp = "strict"
	}
	slo = append(slo, field{"comparison", cmp})
	gp := object{{"good", g.Good}, {"offered", g.Offered}, {"attainment", g.Attainment}}
	if g.Unjudged > 0 {
		gp = append(gp, field{"attainment_lower_bound", true}, field{"attainment_upper_bound", g.AttainmentUpper()}, field{"unjudged", g.Unjudged})
	}
	if g.WindowErr == nil {
		gp = append(gp, field{"requests_per_s", float64(g.RequestsPerSecond)}, field{"window_s", g.Window.Length.Seconds()})
		if g.Unjudged > 0 { // as the attainment, good / window counts no unjudged request
			gp = append(gp, field{"requests_per_s_lower_bound", true})
		}
	}
	return append(gp,
		field{"slo", slo},
		field{"tpot_not_applicable", g.TPOTNotApplicable},
		field{"failed_limit", failed},
	)
}

// completenessObject is the completeness in JSON. A count the file does
// not give is left out, with its reason under "absent", never written 0.
func completenessObject(c *Completeness) object {
	co := object{{"state", c.State}}
	if c.By != "" {
		co = append(co, field{"by", c.By})
	}
	if _, gone := c.Absent["planned"]; !gone && c.Planned > 0 {
		co = append(co, field{"planned", c.Planned})
	}
	if _, gone := c.Absent["written"]; !gone {
		co = append(co, field{"written", c.Written})
	}
	co = append(co, field{"read", c.Read})
	if c.Reason != "" {
		co = append(co, field{"reason", c.Reason})
	}
	if len(c.Absent) > 0 {
		co = append(co, field{"absent", c.Absent})
	}
	if cut := c.Cut; cut != nil {
		co = append(co, field{"cut", object{{"line", cut.Line}, {"bytes", cut.Bytes}, {"of", cut.Of}, {"after", cut.After}}})
	}
	return co
}

// namedLengths is a length distribution of a workload and its name.
type namedLengths struct {
	name string
	l    *Lengths
}

// lengths returns the workload's known length distributions.
func (wl *Workload) lengths() []namedLengths {
	var out []namedLengths
	for _, l := range []namedLengths{{"prompt tokens", wl.Prompt}, {"output tokens", wl.Output}} {
		if l.l != nil {
			out = append(out, l)
		}
	}
	return out
}

func strataObject(st *Strata) object {
	list := make([]object, len(st.Strata))
	for i, x := range st.Strata {
		o := object{{"range", x.String()}, {"requests", x.Requests}}
		if x.Above != math.MinInt {
			o = append(o, field{"above", x.Above})
		}
		if x.AtMost != math.MaxInt {
			o = append(o, field{"at_most", x.AtMost})
		}
		for _, m := range catalogue {
			if d := m.Distribution(x.Summary); d != nil && m.Headline {
				o = append(o, field{m.jsonKey(), distObject(d, nil)})
			}
		}
		list[i] = o
	}
	return object{{"by", st.By}, {"of", "ok requests"}, {"unstratified", st.Unstratified}, {"strata", list}}
}

// writeStrata writes the latencies of each stratum: n and, for TTFT, TPOT
// and E2E, the first and last percentile asked.
func writeStrata(b *bytes.Buffer, st *Strata, ps []Percentile) {
	lo, hi := ps[0], ps[len(ps)-1]
	fmt.Fprintf(b, "\nlatency by %s length, over ok requests (%d measured requests that are not ok are in no stratum), ms:\n", st.By, st.Unstratified)
	var headline []Metric
	head := []string{"  stratum", "n"}
	for _, m := range catalogue {
		if m.Headline {
			headline = append(headline, m)
			head = append(head, m.Label+" "+lo.Key(), m.Label+" "+hi.Key())
		}
	}
	at := func(d *Distribution, p Percentile) string {
		if d == nil {
			return "—"
		}
		v, _ := d.At(p)
		return fmtMillis(v)
	}
	rows := [][]string{head}
	for _, x := range st.Strata {
		cells := []string{"  " + x.String(), fmt.Sprint(x.Requests)}
		for _, m := range headline {
			d := m.Distribution(x.Summary)
			cells = append(cells, at(d, lo), at(d, hi))
		}
		rows = append(rows, cells)
	}
	texttable.Write(b, rows, false)
}

func workloadObject(wl *Workload) object {
	o := object{}
	for _, l := range wl.lengths() {
		bins := make([]object, len(l.l.Histogram))
		for i, bin := range l.l.Histogram {
			bins[i] = object{{"from", bin.Lo}, {"below", bin.Hi}, {"count", bin.Count}}
		}
		o = append(o, field{strings.ReplaceAll(l.name, " ", "_"), object{{"n", l.l.N}, {"p50", l.l.P50}, {"p95", l.l.P95}, {"max", l.l.Max}, {"histogram", bins}}})
	}
	if a := wl.Arrivals; a != nil && a.Reading == inflight.AllAtOnce { // no CV: absent, with its reason
		o = append(o, field{"arrivals", object{{"gaps", a.Gaps}, {"mean_ms", millis(a.Mean)}, {"reading", a.Reading}}})
	} else if a != nil {
		o = append(o, field{"arrivals", object{{"gaps", a.Gaps}, {"mean_ms", millis(a.Mean)}, {"cv", a.CV}, {"reading", a.Reading}}})
	}
	if c := wl.Concurrency; c != nil {
		o = append(o, field{"in_flight", object{{"span_s", c.Span.Seconds()}, {"time_weighted_mean", c.Mean}, {"time_weighted_p50", c.P50}, {"max", c.Max},
			{"over", "ok requests, send to last text chunk"}}})
	}
	if e := wl.EarlyStop; e != nil {
		o = append(o, field{"early_stop", object{{"known_max_tokens", e.Known}, {"early", e.Early}, {"rate", e.Rate}}})
	}
	return o
}

// jsonKey is the metric's key in JSON: "ttft_ms".
func (m Metric) jsonKey() string { return m.Key + "_" + m.Unit }

// jsonDetail is what the JSON says of a metric's distribution in s beyond
// its figures: how TPOT and the pooled gaps were taken.
func (s *Summary) jsonDetail(m Metric) object {
	switch {
	case m.id == idTPOT && s.TPOT != nil:
		return object{
			{"weighting", m.Weighting},
			{"gap_weighted_mean", millis(s.TPOT.GapWeightedMean)},
			{"excluded_one_token", s.TPOT.Excluded},
			{"excluded_unstreamed", s.TPOT.Unstreamed},
			{"excluded_no_count", s.Requests.Uncounted.Total()},
		}
	case m.id == idITL && s.ITL != nil:
		o := object{
			{"weighting", m.Weighting},
			{"basis", s.ITL.Basis.String()},
			{"token_basis_requests", s.ITL.TokenBasis},
			{"chunk_basis_requests", s.ITL.ChunkBasis},
		}
		if s.ITL.UnknownBasis > 0 {
			// Written only when there are some, as no_count.
			o = append(o, field{"unknown_basis_requests", s.ITL.UnknownBasis})
		}
		return append(o, field{"no_chunk_requests", s.ITL.NoChunks})
	}
	return nil
}

func distObject(d *Distribution, extra object) object {
	o := object{{"n", d.N}, {"mean", millis(d.Mean)}, {"std", millis(d.Std)}, {"min", millis(d.Min)}, {"max", millis(d.Max)}}
	ids := object{}
	for _, p := range d.Points {
		o = append(o, field{p.P.Key(), millis(p.Value)})
		if p.ID != "" {
			ids = append(ids, field{p.P.Key(), p.ID})
		}
	}
	if len(ids) > 0 {
		o = append(o, field{"request_ids", ids})
	}
	return append(o, extra...)
}

// WriteTable writes the summary as a table for people: every count, each
// distribution in milliseconds with the percentile method named (or, where
// there is none, one line saying why), the throughput window and rates,
// and the goodput figures.
func (s *Summary) WriteTable(w io.Writer) error {
	var b bytes.Buffer
	a := s.Requests
	if c := s.Completeness; c != nil && c.Reason != "" {
		fmt.Fprintf(&b, "%s\n\n", c.Reason)
	}
	if a.Rejected > 0 {
		fmt.Fprintf(&b, "SET ASIDE: %d of %d records were rejected as invalid; they are counted, never measured (reasons under \"rejected\")\n\n",
			a.Rejected, a.Offered)
	}
	if h := s.Header; h != nil {
		writeHeader(&b, h)
	} else {
		b.WriteString("environment: not recorded (the records carry no run header)\n\n")
	}
	writeRequests(&b, a)
	switch c := s.Warmup; {
	case c == nil:
	case !c.Steady && a.Warmup == 0:
		fmt.Fprintf(&b, "WARM-UP NOT FOUND: %s; nothing was set aside, so the figures below may include a warm-up\n", c.Reason)
	default:
		fmt.Fprintf(&b, "warm-up: %s\n", c.Reason)
	}
	b.WriteString("\n")
	if wl := s.Workload; wl != nil {
		writeWorkload(&b, wl)
	}
	s.writeLatencies(&b)
	if c := s.Client; c != nil && c.TTFTFromScheduled != nil {
		b.WriteString("from sched.: TTFT and E2E from each request's scheduled time, not its send (lateness and wait included: coordinated omission corrected, as wrk2)\n")
	}
	if t := s.Throughput; t != nil {
		writeThroughput(&b, t, a, s.Absent["output_tokens_per_s"])
	}
	if g := s.Goodput; g != nil {
		writeGoodput(&b, g, a)
	}
	if st := s.Strata; st != nil {
		writeStrata(&b, st, s.Percentiles)
	}
	s.writeAbsent(&b)
	for i, e := range s.Rejected {
		if i == 0 {
			b.WriteString("\nrejected:\n")
		}
		fmt.Fprintf(&b, "  %v\n", e)
	}
	if more := a.Rejected - len(s.Rejected); more > 0 {
		fmt.Fprintf(&b, "  and %d more, counted but not listed\n", more)
	}
	for i, n := range s.Notes {
		if i == 0 {
			b.WriteString("\nnotes:\n")
		}
		fmt.Fprintf(&b, "  - %s\n", n)
	}
	_, err := w.Write(b.Bytes())
	return err
}

// writeRequests writes the accounting: where every offered record ended.
func writeRequests(b *bytes.Buffer, a Accounting) {
	fmt.Fprintf(b, "requests: %d offered = %d ok + %d zero-token + %d failed + %d rejected", a.Offered, a.OK, a.ZeroToken, a.Failed, a.Rejected)
	switch {
	case a.Warmup > 0 && a.Preflight > 0:
		fmt.Fprintf(b, " + %d warm-up + %d preflight (not measured)", a.Warmup, a.Preflight)
	case a.Warmup > 0:
		fmt.Fprintf(b, " + %d warm-up (not measured)", a.Warmup)
	case a.Preflight > 0:
		fmt.Fprintf(b, " + %d preflight (not measured)", a.Preflight)
	}
	if a.Unfinished > 0 {
		fmt.Fprintf(b, " + %d unfinished at the run's end (not measured, not failed)", a.Unfinished)
	}
	b.WriteString("\n")
	fmt.Fprintf(b, "          failed: %d error, %d timeout, %d cancelled; %s had one token (no TPOT)\n",
		a.Errors, a.Timeouts, a.Cancelled, plural.Of(a.OneToken, "ok request"))
	if u := a.Uncounted; u.Total() > 0 {
		fmt.Fprintf(b, "          no token count: %s (%d no usage, %d usage of zero, %d count below the chunks): in E2E, and in TTFT and the gaps when streamed; not in TPOT or the token rates\n",
			plural.Of(u.Total(), "ok request"), u.NoUsage, u.ZeroUsage, u.BelowChunks)
	}
	if a.Unstreamed > 0 {
		fmt.Fprintf(b, "          not streamed: %s whose text came at once (one JSON body or one chunk): in E2E, and in the token rates when counted; not in TTFT or TPOT\n", plural.Of(a.Unstreamed, "ok request"))
	}
}

// A latencyRow is a latency table row: a label and its distribution.
type latencyRow struct {
	name string
	d    *Distribution
}

// latencyRows selects the rows of the latency table: the catalogue's
// distributions the summary has, then the client's.
func (s *Summary) latencyRows() []latencyRow {
	var rows []latencyRow
	for _, m := range catalogue {
		if d := m.Distribution(s); d != nil && !m.Client {
			label := m.Label
			if m.id == idITL {
				label += " (" + s.ITL.Basis.String() + " gaps)"
			}
			rows = append(rows, latencyRow{label, d})
		}
	}
	if c := s.Client; c != nil {
		for _, r := range []latencyRow{{"first answer", c.FirstAnswer}, {"client wait", c.Wait}, {"lateness", c.Lateness}} {
			if r.d != nil {
				rows = append(rows, r)
			}
		}
		for _, m := range catalogue {
			if d := m.Distribution(s); d != nil && m.Client {
				rows = append(rows, latencyRow{m.Label, d})
			}
		}
	}
	return rows
}

// writeLatencies writes the latency table and how its figures were
// taken, or one line saying why there is none.
func (s *Summary) writeLatencies(b *bytes.Buffer) {
	rows := s.latencyRows()
	if len(rows) == 0 {
		// No table of nothing: one line says why.
		why := "no measured request ended ok"
		if s.Requests.measured() == 0 {
			why = s.Requests.nothingMeasured()
		}
		fmt.Fprintf(b, "latencies: none, %s\n", why)
		return
	}
	writeLatencyTable(b, rows, s.Percentiles)
	fmt.Fprintf(b, "\npercentiles: %s", s.Method)
	if s.Method == NearestRank {
		b.WriteString(" (value at rank ⌈p·N/100⌉, a real request)")
	} else {
		b.WriteString(" (Hyndman–Fan type 7, as numpy and vLLM)")
	}
	b.WriteString("; mean of TTFT/TPOT/E2E is request-weighted; std is the population std\n")
	if s.TPOT != nil {
		fmt.Fprintf(b, "TPOT: (t_last − t_first)/(n − 1) with n from usage; gap-weighted mean %.3f ms; %d one-token requests excluded",
			millis(s.TPOT.GapWeightedMean), s.TPOT.Excluded)
		if n, u := s.TPOT.Unstreamed, s.Requests.Uncounted.Total(); n+u > 0 { // as excluded_unstreamed and excluded_no_count
			fmt.Fprintf(b, ", %d of two or more counted tokens not streamed, %d without a count", n, u)
		}
		b.WriteString("\n")
	}
	if it := s.ITL; it != nil {
		writeITLBasis(b, it, s.Requests.OK)
	}
}

// writeLatencyTable writes the rows: names left-aligned by padding them
// to one width, numbers right-aligned by the tabwriter.
func writeLatencyTable(b *bytes.Buffer, rows []latencyRow, ps []Percentile) {
	head := []string{"metric (ms)", "n", "mean", "std", "min"}
	for _, p := range ps {
		head = append(head, p.Key())
	}
	table := [][]string{append(head, "max")}
	for _, r := range rows {
		d := r.d
		cells := []string{r.name, fmt.Sprint(d.N), fmtMillis(d.Mean), fmtMillis(d.Std), fmtMillis(d.Min)}
		for _, p := range d.Points {
			cells = append(cells, fmtMillis(p.Value))
		}
		table = append(table, append(cells, fmtMillis(d.Max)))
	}
	texttable.Write(b, table, true)
}

// writeITLBasis says what the pooled gaps are between, and what adds none.
func writeITLBasis(b *bytes.Buffer, it *ITLStats, ok int) {
	pooled := it.TokenBasis + it.ChunkBasis + it.UnknownBasis
	fmt.Fprintf(b, "ITL: gap-weighted, pooled over %d requests with chunk arrivals: %d had one chunk per token, %d did not",
		pooled, it.TokenBasis, it.ChunkBasis)
	if it.UnknownBasis > 0 {
		fmt.Fprintf(b, ", %d unknown (no token count)", it.UnknownBasis)
	}
	if it.ChunkBasis+it.UnknownBasis > 0 {
		b.WriteString(" (their gaps are chunk gaps: the per-token gap distribution is unknown)")
	}
	if it.NoChunks > 0 {
		fmt.Fprintf(b, "; %d without chunk arrivals", it.NoChunks)
	}
	if one := ok - pooled - it.NoChunks; one > 0 {
		fmt.Fprintf(b, "; %d not streamed (one chunk, no gap)", one)
	}
	b.WriteString("\n")
}

// writeThroughput writes the window and the rates; noOutput, when not
// "", says why the output rate is absent.
func writeThroughput(b *bytes.Buffer, t *Throughput, a Accounting, noOutput string) {
	fmt.Fprintf(b, "\nthroughput over %.3f s (%s), counting %s%s:\n", t.Window.Length.Seconds(), windowKind(t.Window), plural.Of(t.Requests, "ok request"), a.Uncounted.leftOut(t.Requests))
	switch {
	case noOutput != "":
		fmt.Fprintf(b, "  output  absent: %s\n", noOutput)
	case t.LowerBound():
		fmt.Fprintf(b, "  output  ≥%.3f tokens/s (≥%d tokens), a LOWER BOUND: it counts %d of the %d ok requests, the others have no token count\n",
			float64(t.OutputTokensPerSecond), t.OutputTokens, t.CountedRequests, t.Requests)
	default:
		fmt.Fprintf(b, "  output  %.3f tokens/s (%d tokens)\n", float64(t.OutputTokensPerSecond), t.OutputTokens)
	}
	switch {
	case t.PromptLowerBound():
		fmt.Fprintf(b, "  prompt  ≥%.3f tokens/s (≥%d tokens), a LOWER BOUND: it counts %d of the %d ok requests, the others have no prompt token count; a separate figure: never add the two\n",
			float64(t.PromptTokensPerSecond), t.PromptTokens, t.PromptCountedRequests, t.Requests)
	case t.PromptTokens > 0:
		fmt.Fprintf(b, "  prompt  %.3f tokens/s (%d tokens), a separate figure: never add the two\n", float64(t.PromptTokensPerSecond), t.PromptTokens)
	default:
		b.WriteString("  prompt  absent: no ok record carries a prompt token count\n")
	}
	fmt.Fprintf(b, "  requests  %.3f /s\n", float64(t.RequestsPerSecond))
}

// writeGoodput writes the attainment, the goodput rate and the failing
// limits.
func writeGoodput(b *bytes.Buffer, g *Goodput, a Accounting) {
	fmt.Fprintf(b, "\ngoodput against SLO %s, judged jointly per request:\n", g.SLO)
	at := "" // "≥" before a lower bound
	if g.Unjudged > 0 {
		at = "≥"
	}
	fmt.Fprintf(b, "  attainment  %d good / %d offered = %s%.2f%% (failed, zero-token and rejected requests stay in the denominator",
		g.Good, g.Offered, at, 100*g.Attainment)
	if a.Unfinished > 0 {
		fmt.Fprintf(b, "; the %d unfinished at the run's end are not judged", a.Unfinished)
	}
	b.WriteString(")\n")
	if g.WindowErr == nil {
		fmt.Fprintf(b, "  goodput     %s%.3f good requests/s over %.3f s\n", at, float64(g.RequestsPerSecond), g.Window.Length.Seconds())
	} else {
		fmt.Fprintf(b, "  goodput     absent: %s\n", strings.TrimPrefix(g.WindowErr.Error(), ErrInvalidWindow.Error()+": "))
	}
	var failing []string
	for i, l := range g.SLO.limits() {
		if l.limit > 0 { // a limit not set fails none, and is not named
			failing = append(failing, fmt.Sprintf("%s %d", l.name, g.failed()[i]))
		}
	}
	na := plural.Of(g.TPOTNotApplicable, "one-token request")
	if other := g.TPOTNotApplicable - a.OneToken; other > 0 { // see Goodput.TPOTNotApplicable
		na = fmt.Sprintf("%d requests (%d of one token; %d whose text came at once, or held to one token by max_tokens without a count)", g.TPOTNotApplicable, a.OneToken, other)
	}
	fmt.Fprintf(b, "  failing: %s; TPOT limit not applicable to %s\n", strings.Join(failing, ", "), na)
	if g.Unjudged > 0 {
		fmt.Fprintf(b, "  lower bounds: %s met every limit but TPOT, which their unknown token count leaves unjudged; they are not counted good: the attainment is between %.2f%% and %.2f%%\n",
			plural.Of(g.Unjudged, "ok request"), 100*g.Attainment, 100*g.AttainmentUpper())
	}
}

// writeAbsent writes the absent figures with their reasons, one a line,
// in the catalogue's order and then the others'.
func (s *Summary) writeAbsent(b *bytes.Buffer) {
	var absent []string
	keys := make([]string, 0, len(catalogue)+8)
	for _, m := range catalogue {
		keys = append(keys, m.Key)
	}
	for _, k := range append(keys, "throughput", "output_tokens_per_s", "prompt_tokens_per_s",
		"workload.prompt", "workload.output", "workload.arrivals", "workload.concurrency", "workload.early_stop", "client.wait") {
		if why, ok := s.Absent[k]; ok {
			absent = append(absent, fmt.Sprintf("  %s: %s\n", k, why))
		}
	}
	if len(absent) > 0 {
		b.WriteString("\nabsent:\n" + strings.Join(absent, ""))
	}
}

// writeWorkload writes the workload description, before the latencies.
func writeWorkload(b *bytes.Buffer, wl *Workload) {
	b.WriteString("workload of the measured requests:\n")
	for _, l := range wl.lengths() {
		fmt.Fprintf(b, "  %s: n %d, p50 %d, p95 %d, max %d; histogram from %d by %d:", l.name, l.l.N, l.l.P50, l.l.P95, l.l.Max,
			l.l.Histogram[0].Lo, l.l.Histogram[0].Hi-l.l.Histogram[0].Lo)
		for _, bin := range l.l.Histogram {
			fmt.Fprintf(b, " %d", bin.Count)
		}
		b.WriteString("\n")
	}
	if a := wl.Arrivals; a != nil && a.Reading == inflight.AllAtOnce {
		fmt.Fprintf(b, "  arrivals: %d gaps between sends, every one 0: all at once\n", a.Gaps)
	} else if a != nil {
		fmt.Fprintf(b, "  arrivals: %d gaps between sends, mean %.3f ms, CV %.2f (%s; Poisson gives 1)\n", a.Gaps, millis(a.Mean), a.CV, a.Reading)
	}
	if c := wl.Concurrency; c != nil {
		fmt.Fprintf(b, "  in flight (ok requests, send → last text, time-weighted over %.3f s): mean %.2f, p50 %d, max %d\n",
			c.Span.Seconds(), c.Mean, c.P50, c.Max)
	}
	if e := wl.EarlyStop; e != nil {
		fmt.Fprintf(b, "  early stop: %d of %s with a known max_tokens ended before it (%.1f%%)\n", e.Early, plural.Of(e.Known, "ok request"), 100*e.Rate)
	}
	b.WriteString("\n")
}

// writeHeader writes how the run was taken, before its figures.
func writeHeader(b *bytes.Buffer, h *RunHeader) {
	fmt.Fprintf(b, "run: %s", h.Tool)
	if h.Target != "" {
		fmt.Fprintf(b, " → %s", h.Target)
	}
	if h.API != "" || h.Model != "" {
		fmt.Fprintf(b, " (%s, model %s)", h.API, h.Model)
	}
	if !h.Start.IsZero() {
		fmt.Fprintf(b, ", started %s", h.Start.UTC().Format(time.RFC3339))
	}
	b.WriteString("\n")
	texttable.Pairs(b, "load", h.Load)
	texttable.Pairs(b, "environment", h.Env)
	if len(h.Env) == 0 {
		b.WriteString("environment: not recorded\n")
	}
	b.WriteString("\n")
}

func windowKind(w Window) string {
	if w.Declared {
		return "declared"
	}
	return "first send → last text chunk"
}
