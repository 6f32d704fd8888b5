package conformance

import (
	"bytes"
	"errors"
	"math"
	"strings"
	"testing"
)

// Python's json.dumps writes NaN, Infinity and -Infinity for a float that
// is not finite, which is what the traps trap-all-failed and
// edge-zero-decode-time name: such an answer is read, and differs from the
// case, instead of making the whole file unreadable.
func TestReadAnswersNonFinite(t *testing.T) {
	// json.dumps({"case": "trap-all-failed", "figures": {...}}) for a tool
	// that takes numpy's mean of nothing.
	in := `{"case": "trap-all-failed", "figures": {"ttft_ms.mean": NaN, "ttft_ms.p50": Infinity, "ttft_ms.p99": -Infinity, "ttft_ms.n": 0}}
{"case": "edge-zero-decode-time", "figures": {"request.burst.user_tps": Infinity, "request.burst.tpot_ms": null}}
`
	answers, err := ReadAnswers(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	f := answers["trap-all-failed"]
	if x := f["ttft_ms.mean"]; x.Absent || !math.IsNaN(x.Num) {
		t.Errorf("NaN read as %v", x)
	}
	if x := f["ttft_ms.p50"]; !math.IsInf(x.Num, 1) {
		t.Errorf("Infinity read as %v", x)
	}
	if x := f["ttft_ms.p99"]; !math.IsInf(x.Num, -1) {
		t.Errorf("-Infinity read as %v", x)
	}
	rs, err := CheckAnswers(answers)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if bad, _ := WriteReport(&out, rs); bad != 2 {
		t.Errorf("%d cases differ, want 2:\n%s", bad, out.String())
	}
	for _, want := range []string{
		"differ        trap-all-failed\n    ttft_ms.mean: got NaN, want absent\n    ttft_ms.p50: got +Inf, want absent\n    ttft_ms.p99: got -Inf, want absent\n",
		"differ        edge-zero-decode-time\n    request.burst.user_tps: got +Inf, want absent\n",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, out.String())
		}
	}

	// Only the bare words, outside strings, are numbers; a case id or a
	// figure name holding them is left alone.
	answers, err = ReadAnswers(strings.NewReader(`{"NaN": {"ttft_ms.n": 1}}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := CheckAnswers(answers); err == nil || !strings.Contains(err.Error(), `no case "NaN"`) {
		t.Errorf(`a case named "NaN": %v`, err)
	}
	answers, err = ReadAnswers(strings.NewReader(`{"case": "edge-ties", "figures": {"ttft_ms.p50": NaN}} {"edge-one-request": {"ttft_ms.p99":Infinity}}`))
	if err != nil || !math.IsNaN(answers["edge-ties"]["ttft_ms.p50"].Num) || !math.IsInf(answers["edge-one-request"]["ttft_ms.p99"].Num, 1) {
		t.Errorf("two objects on a line: %v, %v", answers, err)
	}
	for _, bad := range []string{
		`{"case": "edge-ties", "figures": {"ttft_ms.p50": NaNa}}`,
		`{"case": "edge-ties", "figures": {"ttft_ms.p50": nan}}`,
		`{"case": "edge-ties", "figures": {"ttft_ms.p50": +Infinity}}`,
		`{"case": "edge-ties", "figures": {"ttft_ms.p50": "NaN"}}`,
	} {
		if _, err := ReadAnswers(strings.NewReader(bad)); err == nil {
			t.Errorf("ReadAnswers(%q) gave no error", bad)
		}
	}
}

// Answers name the version of the cases they were computed for, in a line
// or in the object form; answers for another version are refused, since
// its cases are not these.
func TestReadAnswersVersion(t *testing.T) {
	for _, in := range []string{
		`{"case": "edge-ties", "version": "` + Version + `", "figures": {"ttft_ms.p50": 100}}`,
		`{"version": "` + Version + `", "edge-ties": {"ttft_ms.p50": 100}}`,
		`{"version": "` + Version + `"}` + "\n" + `{"case": "edge-ties", "figures": {"ttft_ms.p50": 100}}`,
		// A version written as a number is read as written.
		`{"case": "edge-ties", "version": ` + Version + `, "figures": {"ttft_ms.p50": 100}}`,
		`{"version": ` + Version + `, "edge-ties": {"ttft_ms.p50": 100}}`,
		// Python's json.dumps writes a float version 3.0: the integer it equals.
		`{"case": "edge-ties", "version": ` + Version + `.0, "figures": {"ttft_ms.p50": 100}}`,
		`{"version": ` + Version + `.000, "edge-ties": {"ttft_ms.p50": 100}}`,
	} {
		answers, err := ReadAnswers(strings.NewReader(in))
		if err != nil {
			t.Errorf("%s: %v", in, err)
			continue
		}
		if len(answers) != 1 || answers["edge-ties"]["ttft_ms.p50"] != Num(100) {
			t.Errorf("%s: read %v", in, answers)
		}
	}
	for _, in := range []string{
		`{"case": "edge-ties", "version": "0", "figures": {"ttft_ms.p50": 100}}`,
		`{"version": "0", "edge-ties": {"ttft_ms.p50": 100}}`,
		`{"case": "edge-ties", "version": 0, "figures": {"ttft_ms.p50": 100}}`,
		`{"case": "edge-ties", "version": 0.0, "figures": {"ttft_ms.p50": 100}}`,
	} {
		_, err := ReadAnswers(strings.NewReader(in))
		if !errors.Is(err, ErrVersion) || !strings.Contains(err.Error(), `"0"`) || !strings.Contains(err.Error(), `"`+Version+`"`) {
			t.Errorf("%s: %v, want ErrVersion naming both versions", in, err)
		}
	}
	for _, in := range []string{
		`{"version": true, "edge-ties": {}}`,
		`{"case": "edge-ties", "version": ["3"], "figures": {}}`,
	} {
		_, err := ReadAnswers(strings.NewReader(in))
		if err == nil || !strings.Contains(err.Error(), "the version is a string or a number, not ") {
			t.Errorf("%s: %v, want an error saying a version is a string or a number", in, err)
		}
	}
}

// A figure of a request names a request of its case: a misspelt request
// id would otherwise pass in silence as a figure not given.
func TestCheckAnswersRequestIDs(t *testing.T) {
	if _, err := CheckAnswers(map[string]Figures{"trap-user-tps-n": {"request.u1.user_tps": Num(40)}}); err != nil {
		t.Errorf("a request of the case: %v", err)
	}
	_, err := CheckAnswers(map[string]Figures{"trap-user-tps-n": {"request.u1.user_tps": Num(40), "request.U2.user_tps": Num(25)}})
	if err == nil || !strings.Contains(err.Error(), `"request.U2.user_tps"`) || !strings.Contains(err.Error(), `"U2"`) {
		t.Errorf("a request id the case does not have: %v, want an error naming it", err)
	}
	// Request ids of another case are not ids of this one.
	_, err = CheckAnswers(map[string]Figures{"trap-tpot-n": {"request.u1.tpot_ms": Num(50)}})
	if err == nil {
		t.Error("a request id of another case is not an error")
	}
}
