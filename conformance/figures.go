package conformance

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// A Value is one figure: a number, or absent (the figure cannot be
// computed from the inputs, which is not the same as 0).
type Value struct {
	Num    float64
	Absent bool
}

// Num returns a figure of value x.
func Num(x float64) Value { return Value{Num: x} }

// Absent is the value of a figure that cannot be computed.
var Absent = Value{Absent: true}

// MarshalJSON writes a number, or null when absent.
func (v Value) MarshalJSON() ([]byte, error) {
	if v.Absent {
		return []byte("null"), nil
	}
	if math.IsNaN(v.Num) || math.IsInf(v.Num, 0) {
		return nil, fmt.Errorf("conformance: %v is not a figure", v.Num)
	}
	return strconv.AppendFloat(nil, v.Num, 'g', -1, 64), nil
}

// UnmarshalJSON reads a number, or null as absent. (ReadAnswers also
// reads Python's NaN, Infinity and -Infinity, as numbers that agree with
// no figure.)
func (v *Value) UnmarshalJSON(b []byte) error {
	switch string(bytes.TrimSpace(b)) {
	case "null":
		*v = Absent
		return nil
	case `"\u0000NaN"`:
		*v = Num(math.NaN())
		return nil
	case `"\u0000+Inf"`:
		*v = Num(math.Inf(1))
		return nil
	case `"\u0000-Inf"`:
		*v = Num(math.Inf(-1))
		return nil
	}
	var x float64
	if err := json.Unmarshal(b, &x); err != nil {
		return fmt.Errorf("conformance: a figure is a number or null, not %s", b)
	}
	*v = Num(x)
	return nil
}

// String writes the value, or "absent".
func (v Value) String() string {
	if v.Absent {
		return "absent"
	}
	return strconv.FormatFloat(v.Num, 'g', -1, 64)
}

// Figures are named figures. The names carry their units:
//
//	requests.offered, .ok, .zero_token, .failed, .warmup    every request, counted once
//	requests.one_token            ok requests with n = 1 (no TPOT)
//	requests.no_token_count       ok requests whose usage gave no count
//	                              that fits their chunks (no TPOT, no tokens)
//	ttft_ms.P, e2e_ms.P           over ok requests; P is n, mean, min, max or a
//	tpot_ms.P                     percentile key (p50, p99.9); TPOT over ok
//	                              requests with n ≥ 2 and a count
//	tpot_ms.gap_weighted_mean     Σ(t_last − t_first) / Σ(n − 1)
//	itl_ms.P                      the gaps between consecutive text chunks,
//	                              pooled over ok requests
//	output_tokens_per_s, prompt_tokens_per_s, requests_per_s   over the window
//	goodput.good, goodput.attainment, goodput.requests_per_s   under the SLO
//	request.ID.ttft_ms, .e2e_ms, .tpot_ms, .max_gap_ms, .user_tps   one request
type Figures map[string]Value

// Names returns the figures' names, sorted.
func (f Figures) Names() []string {
	names := make([]string, 0, len(f))
	for k := range f {
		names = append(names, k)
	}
	slices.Sort(names)
	return names
}

// Agree reports whether a tool's value got agrees with the expected value
// want of the figure named name, within the figure's tolerance: a
// millisecond figure within 1 ns (10⁻⁶ ms), a rate or fraction within a
// relative 10⁻⁹, a count exactly. An absent figure agrees only with
// absent.
func Agree(name string, want, got Value) bool {
	if want.Absent || got.Absent {
		return want.Absent == got.Absent
	}
	if math.IsNaN(got.Num) || math.IsInf(got.Num, 0) {
		return false
	}
	d := math.Abs(got.Num - want.Num)
	switch kindOf(name) {
	case kindCount:
		return got.Num == want.Num
	case kindMillis:
		return d <= 1e-6+1e-12*math.Abs(want.Num)
	}
	return d <= 1e-9*math.Abs(want.Num) || d <= 1e-12
}

type figureKind int

const (
	kindRate figureKind = iota
	kindMillis
	kindCount
)

// kindOf tells a figure's kind by its name.
func kindOf(name string) figureKind {
	switch {
	case strings.HasPrefix(name, "requests.") && !strings.HasSuffix(name, "_per_s"),
		strings.HasSuffix(name, ".n"), name == "goodput.good":
		return kindCount
	case strings.HasSuffix(name, "_ms") || strings.Contains(name, "_ms."):
		return kindMillis
	}
	return kindRate
}

// A Difference is one figure on which a tool and a case disagree.
type Difference struct {
	Figure    string
	Want, Got Value
	// Missing is true when the tool gave no value for the figure; the
	// Helper and the check command do not count it as a disagreement.
	Missing bool
}

func (d Difference) String() string {
	if d.Missing {
		return fmt.Sprintf("%s: not answered (want %v)", d.Figure, d.Want)
	}
	return fmt.Sprintf("%s: got %v, want %v", d.Figure, d.Got, d.Want)
}

// Compare compares a tool's figures with a case's expected figures, in
// the order of their names. Figures the case does not name are ignored.
func Compare(want, got Figures) (differ, missing []Difference) {
	for _, name := range want.Names() {
		w := want[name]
		g, ok := got[name]
		switch {
		case !ok:
			missing = append(missing, Difference{Figure: name, Want: w, Missing: true})
		case !Agree(name, w, g):
			differ = append(differ, Difference{Figure: name, Want: w, Got: g})
		}
	}
	return differ, missing
}
