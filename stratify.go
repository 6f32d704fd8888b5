package llmmetrics

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Strata are the ok requests of a run split by an observed length, each
// stratum summarized apart: output length is not fixed, so a latency
// distribution over all requests mixes short and long ones (the specification's
// seed 000, §5). Requests that are not ok have no observed output length and are in
// no stratum; Unstratified counts the measured ones.
type Strata struct {
	By           string // "output" (n, from usage) or "prompt" (prompt tokens)
	Strata       []Stratum
	Unstratified int
}

// A Stratum holds the ok requests whose length is in (Above, AtMost]. The
// first stratum has no lower bound (Above is math.MinInt) and the last no
// upper one (AtMost is math.MaxInt). Summary is nil for an empty stratum.
type Stratum struct {
	Above, AtMost int
	Requests      int
	Summary       *Summary
}

// String names the stratum's range, as "n ≤ 16", "16 < n ≤ 64" or
// "n > 256".
func (s Stratum) String() string {
	switch {
	case s.Above == math.MinInt && s.AtMost == math.MaxInt:
		return "all"
	case s.Above == math.MinInt:
		return fmt.Sprintf("n ≤ %d", s.AtMost)
	case s.AtMost == math.MaxInt:
		return fmt.Sprintf("n > %d", s.Above)
	}
	return fmt.Sprintf("%d < n ≤ %d", s.Above, s.AtMost)
}

// A StrataSpec says how to stratify: By "output" or "prompt", at the
// ascending Bounds.
type StrataSpec struct {
	By     string
	Bounds []int
}

// UnmarshalText reads a stratification as "output=16,64,256" or
// "prompt=512,2048": the length and its ascending bounds. It makes a
// StrataSpec a flag (flag.TextVar) or a JSON string.
func (spec *StrataSpec) UnmarshalText(text []byte) error {
	s, err := parseStrata(string(text))
	if err == nil {
		*spec = s
	}
	return err
}

func parseStrata(s string) (StrataSpec, error) {
	by, list, ok := strings.Cut(s, "=")
	spec := StrataSpec{By: strings.TrimSpace(by)}
	if !ok || (spec.By != "output" && spec.By != "prompt") {
		return StrataSpec{}, fmt.Errorf("%w: strata %q: want output=B1,B2,… or prompt=B1,B2,…", ErrInvalidOption, s)
	}
	for _, f := range strings.Split(list, ",") {
		b, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || b < 0 {
			return StrataSpec{}, fmt.Errorf("%w: strata %q: %q is not a token count", ErrInvalidOption, s, strings.TrimSpace(f))
		}
		spec.Bounds = append(spec.Bounds, b)
	}
	return spec, spec.check()
}

func (spec StrataSpec) check() error {
	if spec.By != "output" && spec.By != "prompt" {
		return fmt.Errorf("%w: stratify by %q: want output or prompt", ErrInvalidOption, spec.By)
	}
	for i := 1; i < len(spec.Bounds); i++ {
		if spec.Bounds[i] <= spec.Bounds[i-1] {
			return fmt.Errorf("%w: strata bounds %v must ascend", ErrInvalidOption, spec.Bounds)
		}
	}
	return nil
}

// stratify splits the ok records by their category.
func stratify(recs []Record, cat []Category, spec StrataSpec, opt Options) (*Strata, error) {
	opt.Warmup, opt.Stratify, opt.Notes = nil, nil, nil
	edges := append(append([]int{math.MinInt}, spec.Bounds...), math.MaxInt)
	parts := make([][]Record, len(edges)-1)
	out := &Strata{By: spec.By}
	for i := range recs {
		r := &recs[i]
		switch cat[i] {
		case CategoryOK:
		case CategoryFailed, CategoryZeroToken:
			out.Unstratified++
			continue
		default:
			continue
		}
		n := r.CompletionTokens
		if spec.By == "prompt" {
			n = r.PromptTokens
		} else if !r.counted() {
			out.Unstratified++ // no observed length
			continue
		}
		k, _ := slices.BinarySearch(spec.Bounds, n) // the first bound ≥ n
		parts[k] = append(parts[k], *r)
	}
	for k, part := range parts {
		st := Stratum{Above: edges[k], AtMost: edges[k+1], Requests: len(part)}
		if len(part) > 0 {
			s, err := Summarize(part, opt)
			if err != nil {
				return nil, err
			}
			st.Summary = s
		}
		out.Strata = append(out.Strata, st)
	}
	return out, nil
}
