package conformance

import (
	"bytes"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
)

// recorder is a TB that keeps what Check reports.
type recorder struct {
	errors []string
	logs   []string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}
func (r *recorder) Logf(format string, args ...any) {
	r.logs = append(r.logs, fmt.Sprintf(format, args...))
}

// caseOf returns the case id an error of Check names.
func caseOf(msg string) string {
	id, _, _ := strings.Cut(strings.TrimPrefix(msg, "case "), ":")
	id, _, _ = strings.Cut(id, "\n")
	return id
}

// The library, with a request's completion tokens replaced: a tool that
// reads a different n.
func withTokens(tokens func(r Request) *int) Tool {
	return func(c Case) (Figures, error) {
		c.Requests = slices.Clone(c.Requests)
		for i := range c.Requests {
			if c.Requests[i].Status == "ok" {
				c.Requests[i].CompletionTokens = tokens(c.Requests[i])
			}
		}
		return Library(c)
	}
}

// libraryThen is the library with its figures changed by adjust: a tool
// with one formula of its own.
func libraryThen(adjust func(r Request, f Figures)) Tool {
	return func(c Case) (Figures, error) {
		f, err := Library(c)
		if err != nil {
			return nil, err
		}
		for _, r := range c.Requests {
			adjust(r, f)
		}
		return f, nil
	}
}

// userTPSWithN is the library except that its User TPS divides n tokens,
// not the n − 1 gaps, by the decode time.
var userTPSWithN = libraryThen(func(r Request, f Figures) {
	name := perRequest(r.ID, "user_tps")
	if x, ok := f[name]; ok && !x.Absent {
		n := float64(*r.CompletionTokens)
		f[name] = Num(x.Num * n / (n - 1))
	}
})

// chunksForTokens counts a request's text chunks as its tokens.
var chunksForTokens = withTokens(func(r Request) *int {
	n := len(r.TextTimes())
	return &n
})

// failuresLeftOut drops the failed requests before summarizing, so that
// they are in no denominator.
func failuresLeftOut(c Case) (Figures, error) {
	c.Requests = slices.DeleteFunc(slices.Clone(c.Requests), func(r Request) bool { return r.Status != "ok" })
	return Library(c)
}

// roleChunkTTFT stamps TTFT at the first event of any kind.
var roleChunkTTFT = libraryThen(func(r Request, f Figures) {
	if name := perRequest(r.ID, "ttft_ms"); r.Status == "ok" && len(r.Events) > 0 && !f[name].Absent {
		f[name] = Num(float64(r.Events[0].At-r.Sent) / 1e6)
	}
})

// A deliberately wrong tool is caught by Check, on the case of its trap,
// with the trap named.
func TestCheckCatchesWrongTools(t *testing.T) {
	for _, tc := range []struct {
		name string
		tool Tool
		trap string // the case that must be reported
	}{
		{"user TPS with n", userTPSWithN, "trap-user-tps-n"},
		{"chunk count for tokens", chunksForTokens, "trap-chunks-for-tokens"},
		{"failures out of the denominator", failuresLeftOut, "trap-failures-out-of-attainment"},
		{"TTFT at the role chunk", roleChunkTTFT, "trap-role-only-first-chunk"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var rec recorder
			Check(&rec, tc.tool)
			var c Case
			for _, x := range Cases() {
				if x.ID == tc.trap {
					c = x
				}
			}
			found := false
			for _, msg := range rec.errors {
				if caseOf(msg) == tc.trap {
					found = true
					if !strings.Contains(msg, "trap: "+c.Trap) || !strings.Contains(msg, "specification: "+c.Section) {
						t.Errorf("the report of %s does not name its trap and section:\n%s", tc.trap, msg)
					}
				}
			}
			if !found {
				t.Errorf("%s not reported; reported: %v", tc.trap, ids(rec.errors))
			}
			if len(rec.logs) != 1 || !strings.Contains(rec.logs[0], "cases agree") {
				t.Errorf("logs %q", rec.logs)
			}
		})
	}
}

func ids(msgs []string) []string {
	var out []string
	for _, m := range msgs {
		out = append(out, caseOf(m))
	}
	return out
}

// The right tool passes Check: the library, on every case it agrees with.
func TestCheckPassesLibrary(t *testing.T) {
	var rec recorder
	Check(&rec, Library)
	for _, msg := range rec.errors {
		if _, known := libraryDisagrees[caseOf(msg)]; !known {
			t.Errorf("unexpected: %s", msg)
		}
	}
	if len(rec.errors) != len(libraryDisagrees) {
		t.Errorf("%d cases reported, want the %d known", len(rec.errors), len(libraryDisagrees))
	}
}

// A tool that panics or refuses is reported, not fatal.
func TestCheckRefusedAndPanic(t *testing.T) {
	var rec recorder
	Check(&rec, func(c Case) (Figures, error) {
		if c.ID == "edge-ties" {
			panic("boom")
		}
		return nil, fmt.Errorf("no")
	})
	if len(rec.errors) != len(Cases()) {
		t.Fatalf("%d errors, want one per case", len(rec.errors))
	}
	if !slices.ContainsFunc(rec.errors, func(m string) bool { return strings.Contains(m, "panicked: boom") }) {
		t.Error("the panic is not reported")
	}
}

// Every case is well formed: a unique id, a trap, a section, arithmetic,
// expected figures whose names are known, options that the library takes.
func TestCasesWellFormed(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range Cases() {
		if seen[c.ID] {
			t.Errorf("case %s twice", c.ID)
		}
		seen[c.ID] = true
		if c.Trap == "" || c.Section == "" || c.Arithmetic == "" || len(c.Expected) == 0 {
			t.Errorf("case %s lacks a trap, section, arithmetic or figures", c.ID)
		}
		if !strings.HasSuffix(c.Trap, ".") || strings.Count(c.Trap, ". ") > 0 {
			t.Errorf("case %s: the trap is not one sentence: %q", c.ID, c.Trap)
		}
		if _, err := c.Options.LibraryOptions(); err != nil {
			t.Errorf("case %s: %v", c.ID, err)
		}
		for name := range c.Expected {
			if !knownFigure(name) {
				t.Errorf("case %s: unknown figure %s", c.ID, name)
			}
		}
	}
	if len(seen) < 40 {
		t.Errorf("%d cases, want at least 40", len(seen))
	}
}

func knownFigure(name string) bool {
	switch name {
	case "requests.offered", "requests.ok", "requests.zero_token", "requests.failed", "requests.warmup",
		"requests.one_token", "requests.no_token_count", "tpot_ms.gap_weighted_mean",
		"output_tokens_per_s", "prompt_tokens_per_s", "requests_per_s",
		"goodput.good", "goodput.attainment", "goodput.requests_per_s":
		return true
	}
	if rest, ok := strings.CutPrefix(name, "request."); ok {
		i := strings.LastIndex(rest, ".")
		return i > 0 && slices.Contains([]string{"ttft_ms", "e2e_ms", "tpot_ms", "max_gap_ms", "user_tps"}, rest[i+1:])
	}
	dist, stat, ok := strings.Cut(name, ".")
	return ok && slices.Contains([]string{"ttft_ms", "e2e_ms", "tpot_ms", "itl_ms"}, dist) &&
		(slices.Contains([]string{"n", "mean", "min", "max"}, stat) || strings.HasPrefix(stat, "p"))
}

// Tolerances: 1 ns on milliseconds, exact counts, relative 1e-9 on rates;
// absent agrees only with absent.
func TestAgree(t *testing.T) {
	for _, tc := range []struct {
		name      string
		want, got Value
		agree     bool
	}{
		{"ttft_ms.p50", Num(100), Num(100.0000009), true},
		{"ttft_ms.p50", Num(100), Num(100.000002), false},
		{"request.a.tpot_ms", Num(36.25), Num(36.25), true},
		{"requests.ok", Num(3), Num(3.0000001), false},
		{"itl_ms.n", Num(4), Num(4), true},
		{"output_tokens_per_s", Num(2560), Num(2560 * (1 + 1e-10)), true},
		{"output_tokens_per_s", Num(2560), Num(2560 * (1 + 1e-8)), false},
		{"goodput.attainment", Num(0.8), Num(1), false},
		{"tpot_ms.mean", Absent, Num(0), false},
		{"tpot_ms.mean", Num(0), Absent, false},
		{"tpot_ms.mean", Absent, Absent, true},
	} {
		if got := Agree(tc.name, tc.want, tc.got); got != tc.agree {
			t.Errorf("Agree(%s, %v, %v) = %v", tc.name, tc.want, tc.got, got)
		}
	}
}

// An answers file: JSON lines or one object; the library's own answers
// agree, a wrong answer is reported with its trap, unknown ids and
// duplicates are errors.
func TestCheckAnswers(t *testing.T) {
	var lines bytes.Buffer
	for _, r := range Run(Library) {
		if _, known := libraryDisagrees[r.Case.ID]; known || r.Case.ID == "edge-ties" {
			continue // edge-ties is left unanswered
		}
		f, _ := Library(r.Case)
		if r.Case.ID == "trap-user-tps-n" {
			f["request.u1.user_tps"] = Num(50) // 5/0.1: n, not n − 1
		}
		fmt.Fprintf(&lines, "%s\n", mustJSON(t, Answer{Case: r.Case.ID, Figures: f}))
	}
	answers, err := ReadAnswers(&lines)
	if err != nil {
		t.Fatal(err)
	}
	rs, err := CheckAnswers(answers)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	bad, err := WriteReport(&out, rs)
	if err != nil {
		t.Fatal(err)
	}
	if bad != 1 {
		t.Errorf("%d cases differ, want 1:\n%s", bad, out.String())
	}
	want := "differ        trap-user-tps-n\n    request.u1.user_tps: got 50, want 40\n    trap: Per-request token rate"
	if !strings.Contains(out.String(), want) {
		t.Errorf("report lacks %q:\n%s", want, out.String())
	}
	if !strings.Contains(out.String(), "not answered  edge-ties\n") {
		t.Errorf("an unanswered case is not listed:\n%s", out.String())
	}

	obj, err := ReadAnswers(strings.NewReader(`{"edge-ties": {"ttft_ms.p50": 100, "ttft_ms.p99": null}}`))
	if err != nil {
		t.Fatal(err)
	}
	if obj["edge-ties"]["ttft_ms.p50"] != Num(100) || obj["edge-ties"]["ttft_ms.p99"] != Absent {
		t.Errorf("read %v", obj)
	}
	rs, _ = CheckAnswers(obj)
	for _, r := range rs {
		if r.Case.ID == "edge-ties" && (r.Agrees() || len(r.Differ) != 1) {
			t.Errorf("p99 absent where 200 is expected: %+v", r.Differ)
		}
	}
	for _, bad := range []string{
		``, `[1]`, `{"case": "edge-ties", "figures": {"ttft_ms.p50": "100"}}`,
		`{"case": "edge-ties", "figures": {}}` + "\n" + `{"case": "edge-ties", "figures": {}}`,
		`{"case": "edge-ties", "figure": {}}`,
	} {
		if _, err := ReadAnswers(strings.NewReader(bad)); err == nil {
			t.Errorf("ReadAnswers(%q) gave no error", bad)
		}
	}
	if _, err := CheckAnswers(map[string]Figures{"no-such-case": {}}); err == nil {
		t.Error("an unknown case id is not an error")
	}
	// A misnamed figure carrying the trap's wrong value (tpot_ms.p50 for
	// tpot.mean) must not pass as "1 of 3 figures given".
	_, err = CheckAnswers(map[string]Figures{"trap-tpot-n": {"tpot_ms.p50": Num(50), "tpot.mean": Num(40)}})
	if err == nil || !strings.Contains(err.Error(), `"tpot.mean"`) {
		t.Errorf("an unknown figure name: %v, want an error naming it", err)
	}
}

// docs/conformance.md lists every hand case with its trap, as the case
// says it.
func TestDocsListEveryCase(t *testing.T) {
	b, err := os.ReadFile("../docs/conformance.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	for _, c := range handCases() {
		if row := "| `" + c.ID + "` | " + c.Trap + " |"; !strings.Contains(doc, row) {
			t.Errorf("docs/conformance.md lacks the row %s", row)
		}
	}
	if !strings.Contains(doc, "`breadth-00` … `breadth-11`") {
		t.Error("docs/conformance.md does not name the breadth cases")
	}
}

// A tool that changes the case it is given cannot change what it is
// judged against.
func TestRunGivesACopy(t *testing.T) {
	rs := Run(func(c Case) (Figures, error) {
		f := Figures{}
		for name := range c.Expected {
			c.Expected[name] = Num(-1)
			f[name] = Num(-1)
		}
		return f, nil
	})
	for _, r := range rs {
		if r.Agrees() && len(r.Case.Expected) > 0 {
			t.Errorf("case %s agrees with a tool that rewrote its expected figures", r.Case.ID)
		}
	}
}

// Every case docs/field.md cites is a case of the kit.
func TestFieldDocCitesCases(t *testing.T) {
	b, err := os.ReadFile("../docs/field.md")
	if err != nil {
		t.Fatal(err)
	}
	known := map[string]bool{}
	for _, c := range Cases() {
		known[c.ID] = true
	}
	cited := 0
	for _, part := range strings.Split(string(b), "`")[1:] {
		if id, _, _ := strings.Cut(part, " "); (strings.HasPrefix(id, "trap-") || strings.HasPrefix(id, "edge-") ||
			strings.HasPrefix(id, "seed-") || strings.HasPrefix(id, "method-") || strings.HasPrefix(id, "slo-")) && id == part {
			cited++
			if !known[id] {
				t.Errorf("docs/field.md cites %s, which is no case", id)
			}
		}
	}
	if cited < 30 {
		t.Errorf("docs/field.md cites %d cases, want at least 30", cited)
	}
}
