package llmmetrics

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "write the golden files of the root package again (testdata/json_keys.golden)")

// jsonKeysGolden holds every key path of Summary.MarshalJSON: the contract
// of the JSON output with the programs that read it.
const jsonKeysGolden = "testdata/json_keys.golden"

// fullRun is a run whose summary has every section: client facts, a
// header and an end line, a warm-up cut, strata, an SLO, a record set
// aside, one without a count, preflight and notes.
func fullRun() (*Run, Options) {
	ms := time.Millisecond
	ok := func(id string, sent time.Duration, n int, chunks ...time.Duration) Record {
		return Record{ID: id, Sent: sent, Chunks: chunks, CompletionTokens: n, PromptTokens: 100, MaxTokens: 8,
			Client: &ClientSide{Scheduled: sent - ms, HasSchedule: true, Wait: ms, FirstAnswer: chunks[0], HasAnswer: true,
				ReasoningTokens: 2, HasReasoning: true}}
	}
	recs := []Record{
		{ID: "pre", Preflight: true, Warmup: true, Sent: 0, Chunks: []time.Duration{50 * ms}, CompletionTokens: 1},
		ok("w", 10*ms, 2, 80*ms, 90*ms),
		ok("a", 20*ms, 3, 100*ms, 120*ms, 150*ms),
		ok("b", 30*ms, 4, 110*ms, 130*ms, 140*ms, 200*ms),
		ok("c", 40*ms, 1, 90*ms),
		{ID: "nocount", Sent: 50 * ms, Chunks: []time.Duration{70 * ms, 95 * ms}, NoUsage: true},
		{ID: "zero", Sent: 60 * ms, FirstText: 0, LastText: 0},
		{ID: "err", Sent: 70 * ms, Status: StatusError, Message: "overloaded"},
		{ID: "bad", Sent: 80 * ms, CompletionTokens: -1},
	}
	run := &Run{
		Records: recs,
		Header:  &RunHeader{Tool: "test", Target: "http://x", API: "chat", Model: "m", Load: map[string]string{"loop": "open"}, Env: map[string]string{"gpu": "none"}},
		End:     &RunEnd{State: "interrupted", By: "SIGINT", Planned: 20, Written: len(recs)},
	}
	slo := SLO{TTFT: 100 * ms, TPOT: 20 * ms, E2E: 250 * ms, MaxGap: 50 * ms}
	return run, Options{SLO: &slo, Lenient: true, Notes: []string{"a note"}, Warmup: &WarmupSpec{Requests: 1},
		Stratify: &StrataSpec{By: "output", Bounds: []int{2}}}
}

// jsonKeyPaths adds the key paths of a JSON value to paths: "a.b" for
// key b of object a, "a[]" for the elements of an array. The keys of maps
// that hold the caller's own names (a header's load, flags, environment
// and server facts) are written "*".
func jsonKeyPaths(prefix string, v any, paths map[string]bool) {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			switch prefix {
			case "run.load", "run.flags", "run.env", "run.server":
				k = "*"
			}
			p := k
			if prefix != "" {
				p = prefix + "." + k
			}
			paths[p] = true
			jsonKeyPaths(p, x, paths)
		}
	case []any:
		for _, x := range v {
			jsonKeyPaths(prefix+"[]", x, paths)
		}
	}
}

// TestJSONKeys pins the key set of Summary.MarshalJSON: the union of the
// key paths of the summaries of a run with every section, of a run
// without an ok request, and of runs without a window and without a
// judged request. go test -run TestJSONKeys -update writes the golden
// file again, for a change of the key set that is meant.
func TestJSONKeys(t *testing.T) {
	var sums []*Summary
	full, opt := fullRun()
	s, err := full.Summarize(opt)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range catalogue {
		if m.Distribution(s) == nil {
			t.Fatalf("the full run has no %s: the golden would not hold its key", m.Key)
		}
	}
	sums = append(sums, s)
	ms := time.Millisecond
	// A file cut short after a header that promised an end line, with the
	// header's every map; and more records set aside than are listed.
	cut := &Run{
		Records: []Record{{ID: "x", FirstText: 5 * ms, LastText: 5 * ms, CompletionTokens: 1}},
		Header: &RunHeader{Tool: "test", Ends: true, Flags: map[string]string{"rate": "1"},
			Server: map[string]json.RawMessage{"version": json.RawMessage(`"1"`)}},
		Cut: &Cut{Line: 3, Bytes: 10, Of: "record", After: 1},
	}
	for range MaxReasons + 1 {
		cut.Records = append(cut.Records, Record{ID: "bad", CompletionTokens: -1})
	}
	if s, err = cut.Summarize(Options{Lenient: true}); err != nil {
		t.Fatal(err)
	}
	sums = append(sums, s)
	for _, c := range []struct {
		recs []Record
		opt  Options
	}{
		// No ok request: every latency absent, with its reason.
		{[]Record{{ID: "x", Status: StatusTimeout}}, Options{}},
		// No send times and no prompt counts: no throughput; no ok request
		// with two tokens or two chunks.
		{[]Record{{ID: "x", FirstText: 5 * ms, LastText: 5 * ms, CompletionTokens: 1}}, Options{NoSendTimes: true}},
		{[]Record{{ID: "x", Sent: ms, FirstText: 5 * ms, LastText: 5 * ms, CompletionTokens: 1}}, Options{}},
		// Every request warm-up: goodput absent.
		{[]Record{{ID: "x", Warmup: true, FirstText: 5 * ms, LastText: 5 * ms, CompletionTokens: 1}}, Options{SLO: &SLO{TTFT: ms}}},
	} {
		s, err := Summarize(c.recs, c.opt)
		if err != nil {
			t.Fatal(err)
		}
		sums = append(sums, s)
	}
	paths := map[string]bool{}
	for _, s := range sums {
		b, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		var v any
		if err := json.Unmarshal(b, &v); err != nil {
			t.Fatal(err)
		}
		jsonKeyPaths("", v, paths)
	}
	var got bytes.Buffer
	for _, p := range slices.Sorted(func(yield func(string) bool) {
		for p := range paths {
			if !yield(p) {
				return
			}
		}
	}) {
		fmt.Fprintln(&got, p)
	}
	if *update {
		if err := os.WriteFile(jsonKeysGolden, got.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(jsonKeysGolden)
	if err != nil {
		t.Fatalf("%v (go test -run TestJSONKeys -update writes it)", err)
	}
	if !bytes.Equal(got.Bytes(), want) {
		t.Errorf("the JSON key set differs from %s (go test -run TestJSONKeys -update writes it, for a change that is meant):\n%s",
			jsonKeysGolden, lineDiff(string(want), got.String()))
	}
}

// lineDiff lists the lines only in want (−) and only in got (+).
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	for _, l := range w {
		if !slices.Contains(g, l) {
			fmt.Fprintf(&b, "−%s\n", l)
		}
	}
	for _, l := range g {
		if !slices.Contains(w, l) {
			fmt.Fprintf(&b, "+%s\n", l)
		}
	}
	return b.String()
}

// Every metric of the catalogue is whole: a key of its own held by the
// JSON golden (its distribution, and its reason under "absent" where the
// summary has one), names, a unit, a basis, a weighting, and a doc
// reference that go doc finds.
func TestCatalogueEntries(t *testing.T) {
	golden, err := os.ReadFile(jsonKeysGolden)
	if err != nil {
		t.Fatal(err)
	}
	keys := strings.Split(strings.TrimSpace(string(golden)), "\n")
	symbols := packageSymbols(t)
	seen := map[string]bool{}
	for _, m := range catalogue {
		if m.Key == "" || m.Name == "" || m.Label == "" || m.Unit == "" || m.Over == "" || m.Doc == "" {
			t.Errorf("%+v: a field is empty", m)
		}
		if seen[m.Key] {
			t.Errorf("%s: key listed twice", m.Key)
		}
		seen[m.Key] = true
		if m.Weighting != "request" && m.Weighting != "gap" {
			t.Errorf("%s: weighting %q", m.Key, m.Weighting)
		}
		path := m.jsonKey()
		if m.Client {
			path = "client." + path
		}
		if !slices.Contains(keys, path) {
			t.Errorf("%s: %s is not in %s", m.Key, path, jsonKeysGolden)
		}
		if !m.Client && !slices.Contains(keys, "absent."+m.Key) {
			t.Errorf("%s: absent.%s is not in %s", m.Key, m.Key, jsonKeysGolden)
		}
		if !symbols[m.Doc] {
			t.Errorf("%s: its doc reference %s is not a symbol of the package", m.Key, m.Doc)
		}
		if m.Scheduled != "" {
			if due, ok := metricByKey(m.Scheduled); !ok || !due.Client {
				t.Errorf("%s: Scheduled %q is not a metric from the scheduled time", m.Key, m.Scheduled)
			}
		}
		var got Metric
		if err := got.UnmarshalText([]byte(m.Key)); err != nil || got != m {
			t.Errorf("UnmarshalText(%q) = %+v, %v", m.Key, got, err)
		}
		if text, _ := m.MarshalText(); string(text) != m.Key {
			t.Errorf("%s: MarshalText %q", m.Key, text)
		}
	}
	for _, key := range []string{"", "TTFT", "ttft_ms", "first_answer"} {
		m := catalogue[0]
		if err := m.UnmarshalText([]byte(key)); !errors.Is(err, ErrInvalidOption) || m != catalogue[0] {
			t.Errorf("UnmarshalText(%q): %v, and m became %+v", key, err, m)
		}
	}
	var zero Metric
	if zero.Distribution(&Summary{TTFT: &Distribution{}}) != nil {
		t.Error("the zero Metric has a distribution")
	}
}

// packageSymbols returns the package's exported types, and their methods
// and fields, as go doc names them: "Record", "Record.TTFT",
// "ClientStats.TTFTFromScheduled".
func packageSymbols(t *testing.T) map[string]bool {
	t.Helper()
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil || !d.Name.IsExported() {
					continue
				}
				typ := d.Recv.List[0].Type
				if star, ok := typ.(*ast.StarExpr); ok {
					typ = star.X
				}
				if id, ok := typ.(*ast.Ident); ok {
					out[id.Name+"."+d.Name.Name] = true
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					ts, ok := s.(*ast.TypeSpec)
					if !ok || !ts.Name.IsExported() {
						continue
					}
					out[ts.Name.Name] = true
					if st, ok := ts.Type.(*ast.StructType); ok {
						for _, fl := range st.Fields.List {
							for _, n := range fl.Names {
								out[ts.Name.Name+"."+n.Name] = true
							}
						}
					}
				}
			}
		}
	}
	return out
}

// The metrics with a value per request are those an SLO limits, in the
// order of SLO.limits, whose names they lend to the goodput's output.
func TestCatalogueLimits(t *testing.T) {
	ms := time.Millisecond
	slo := SLO{TTFT: 1 * ms, TPOT: 2 * ms, E2E: 3 * ms, MaxGap: 4 * ms}
	var got []limit
	for _, m := range catalogue {
		l, ok := m.Limit(slo)
		if ok != m.PerRequest {
			t.Errorf("%s: Limit says %v, PerRequest %v", m.Key, ok, m.PerRequest)
		}
		r := Record{ID: "r", Chunks: []time.Duration{ms, 2 * ms}, CompletionTokens: 2}
		if _, err := m.Value(&r); (err == nil) != m.PerRequest {
			t.Errorf("%s: Value's error %v, PerRequest %v", m.Key, err, m.PerRequest)
		}
		if ok {
			got = append(got, limit{m.Key, l})
		}
	}
	if want := slo.limits(); !slices.Equal(got, want[:]) {
		t.Errorf("the catalogue's limits %v, SLO.limits %v", got, want)
	}
}

// docs/conventions.md states the defaults; the code must keep them.
func TestConventionsDefaults(t *testing.T) {
	b, err := os.ReadFile("docs/conventions.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	find := func(re string) []string {
		t.Helper()
		m := regexp.MustCompile(re).FindStringSubmatch(doc)
		if m == nil {
			t.Fatalf("docs/conventions.md has no line matching %q: update the test with the page", re)
		}
		return m
	}
	ms := time.Millisecond

	// "**Percentiles** are nearest rank by default", and the table's row.
	method := strings.ReplaceAll(find(`\*\*Percentiles\*\* are ([a-z -]+?) by default`)[1], " ", "-")
	if got := (Options{}).Method.String(); got != method {
		t.Errorf("conventions.md: percentiles are %s by default; the zero Options' method is %s", method, got)
	}
	if row := strings.ReplaceAll(find(`\n\| percentiles \| ([a-z -]+?) \(default\)`)[1], " ", "-"); row != method {
		t.Errorf("conventions.md's table: %s by default, its text: %s", row, method)
	}
	if s, err := Summarize([]Record{{ID: "r", FirstText: ms, LastText: ms, CompletionTokens: 1}}, Options{}); err != nil || s.Method.String() != method {
		t.Errorf("a summary with the default options uses %v (%v), conventions.md says %s", s.Method, err, method)
	}

	// "The standard deviation is the population's", and the table's "std | population".
	find(`The standard deviation is the population's`)
	find(`\n\| std \| population \|`)
	if d, _ := Describe([]time.Duration{ms, 3 * ms}, Options{}.Method); d.Std != ms {
		// Population: √(((1−2)² + (3−2)²)/2) = 1 ms; a sample std would be √2 ms.
		t.Errorf("std of 1 ms and 3 ms is %v, not the population's 1ms", d.Std)
	}

	// TPOT's "mean is request-weighted; the gap-weighted mean (the pooled ITL's)".
	find(`\*\*TPOT\*\* [^\n]*\n[^\n]*Its mean is request-weighted; the gap-weighted mean \(the pooled ITL's\)`)
	tpot, _ := metricByKey(keyTPOT)
	itl, _ := metricByKey(keyITL)
	if tpot.Weighting != "request" || itl.Weighting != "gap" {
		t.Errorf("TPOT's mean is weighted by %s and ITL's by %s; conventions.md says request and gap", tpot.Weighting, itl.Weighting)
	}
	// The seed's averaging illustration: TPOT 10 ms over 100 tokens and
	// 50 ms over 2; request-weighted (10 + 50)/2 = 30 ms, gap-weighted
	// (990 + 50)/(99 + 1) = 10.4 ms.
	s, err := Summarize([]Record{
		{ID: "A", FirstText: 120 * ms, LastText: 1110 * ms, CompletionTokens: 100},
		{ID: "B", FirstText: 120 * ms, LastText: 170 * ms, CompletionTokens: 2},
	}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if s.TPOT.Mean != 30*ms || s.TPOT.GapWeightedMean != 10400*time.Microsecond {
		t.Errorf("TPOT mean %v, gap-weighted %v; want 30ms and 10.4ms", s.TPOT.Mean, s.TPOT.GapWeightedMean)
	}

	// "**SLO limits** are inclusive (≤) by default and strict (<) with `--slo-strict`".
	cmp := find(`\*\*SLO limits\*\* are (inclusive|strict) \((≤|<)\) by default`)[1]
	r := Record{ID: "r", FirstText: 100 * ms, LastText: 100 * ms, CompletionTokens: 1}
	met, err := SLO{TTFT: 100 * ms}.Meets(&r)
	if err != nil {
		t.Fatal(err)
	}
	if got := map[bool]string{true: "inclusive", false: "strict"}[met]; got != cmp {
		t.Errorf("a TTFT of 100 ms against a limit of 100 ms: the default SLO is %s, conventions.md says %s", got, cmp)
	}
	if !strings.Contains(SLO{TTFT: ms}.String(), cmp) {
		t.Errorf("SLO.String %q does not say %s", SLO{TTFT: ms}.String(), cmp)
	}
}
