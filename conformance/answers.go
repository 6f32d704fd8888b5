package conformance

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
)

// An Answer is a tool's figures for one case, as a line of an answers
// file: {"case": "trap-user-tps-n", "figures": {"request.u1.user_tps": 40}}.
type Answer struct {
	Case    string  `json:"case"`
	Figures Figures `json:"figures"`
}

// ReadAnswers reads a tool's answers: JSON objects one after another (one
// a line, say), each {"case": ID, "figures": {NAME: number or null}}; or
// one object mapping each case id to its figures. A case answered twice,
// or a figure that is neither a number nor null, is an error.
func ReadAnswers(r io.Reader) (map[string]Figures, error) {
	dec := json.NewDecoder(r)
	out := map[string]Figures{}
	for k := 1; ; k++ {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err == io.EOF {
			break
		} else if err != nil {
			return nil, fmt.Errorf("answers, object %d: %w", k, err)
		}
		var probe map[string]json.RawMessage
		if err := json.Unmarshal(raw, &probe); err != nil {
			return nil, fmt.Errorf("answers, object %d: not a JSON object", k)
		}
		answers := map[string]Figures{}
		if _, ok := probe["case"]; ok {
			var a Answer
			d := json.NewDecoder(bytes.NewReader(raw))
			d.DisallowUnknownFields()
			if err := d.Decode(&a); err != nil {
				return nil, fmt.Errorf("answers, object %d: %w", k, err)
			}
			if a.Case == "" {
				return nil, fmt.Errorf("answers, object %d: no case id", k)
			}
			answers[a.Case] = a.Figures
		} else if err := json.Unmarshal(raw, &answers); err != nil {
			return nil, fmt.Errorf("answers, object %d: %w", k, err)
		}
		for id, f := range answers {
			if _, dup := out[id]; dup {
				return nil, fmt.Errorf("answers, object %d: case %s answered twice", k, id)
			}
			if f == nil {
				f = Figures{}
			}
			out[id] = f
		}
	}
	if len(out) == 0 {
		return nil, errors.New("answers: none")
	}
	return out, nil
}

// CheckAnswers compares a tool's answers with every case. A case with no
// answer is a Result that is not Answered; an answer naming no case, or a
// figure no case has, is an error (a misspelt id or figure name would
// otherwise pass in silence).
func CheckAnswers(answers map[string]Figures) ([]Result, error) {
	cs := Cases()
	known := map[string]bool{}
	figures := map[string]bool{} // names, a request's id read as "*"
	var rs []Result
	for _, c := range cs {
		for name := range c.Expected {
			figures[figureShape(name)] = true
		}
	}
	for _, id := range slices.Sorted(maps.Keys(answers)) {
		for _, name := range answers[id].Names() {
			if !figures[figureShape(name)] {
				return nil, fmt.Errorf("answers: case %q: no case has a figure %q in conformance %s (docs/conformance.md lists the names)", id, name, Version)
			}
		}
	}
	for _, c := range cs {
		known[c.ID] = true
		got, ok := answers[c.ID]
		if !ok {
			rs = append(rs, Result{Case: c})
			continue
		}
		r := Result{Case: c, Answered: true}
		r.Differ, r.Missing = Compare(c.Expected, got)
		rs = append(rs, r)
	}
	for id := range answers {
		if !known[id] {
			return rs, fmt.Errorf("answers: no case %q in conformance %s", id, Version)
		}
	}
	return rs, nil
}

// figureShape is a figure's name with a request's id and a percentile
// read as "*": "request.u1.user_tps" is "request.*.user_tps" and
// "e2e_ms.p29" is "e2e_ms.p*".
func figureShape(name string) string {
	if id, ok := strings.CutPrefix(name, "request."); ok {
		if _, metric, ok := strings.Cut(id, "."); ok {
			name = "request.*." + metric
		}
	}
	if i := strings.LastIndex(name, ".p"); i >= 0 && i+2 < len(name) && name[i+2] >= '0' && name[i+2] <= '9' {
		name = name[:i] + ".p*"
	}
	return name
}
