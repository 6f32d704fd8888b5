package conformance

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
)

// An Answer is a tool's figures for one case, as a line of an answers
// file: {"case": "trap-user-tps-n", "figures": {"request.u1.user_tps": 40}}.
// Version, when given, is the version of the cases the answer was
// computed for; ReadAnswers reads it as a string or a number ("3" or 3).
type Answer struct {
	Case    string  `json:"case"`
	Version string  `json:"version,omitempty"`
	Figures Figures `json:"figures"`
}

// ErrVersion is the error of answers computed for another version of the
// cases than this one.
var ErrVersion = errors.New("answers for another version of the cases")

// versionOf reads the version an answer names, a string or a number as
// written ("3" or 3, and 3.0 as Python writes a float, read "3"), or ""
// when it names none.
func versionOf(v json.RawMessage) (string, error) {
	v = bytes.TrimSpace(v)
	if len(v) == 0 || string(v) == "null" {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(v, &s); err == nil {
		return s, nil
	}
	var n json.Number
	if err := json.Unmarshal(v, &n); err == nil {
		if f, err := n.Float64(); err == nil && f == math.Trunc(f) && math.Abs(f) < 1<<53 {
			return strconv.FormatInt(int64(f), 10), nil // 3.0 or 3e0: "3"
		}
		return n.String(), nil
	}
	return "", fmt.Errorf("the version is a string or a number, not %s", v)
}

// ReadAnswers reads a tool's answers: JSON objects one after another (one
// a line, say), each {"case": ID, "version": V, "figures": {NAME: number
// or null}}; or one object mapping each case id to its figures, with
// "version": V beside them, V a string or a number. The version may be
// left out; answers naming another version than Version are refused with
// ErrVersion. NaN, Infinity and -Infinity, as Python's json.dumps writes a
// float that is not finite, are read as numbers (they agree with no
// figure). A case answered twice,
// or a figure that is neither a number nor null, is an error.
func ReadAnswers(r io.Reader) (map[string]Figures, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("answers: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(nonFinite(b)))
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
		version := ""
		if _, ok := probe["case"]; ok {
			var a struct { // an Answer, its version a string or a number
				Case    string          `json:"case"`
				Version json.RawMessage `json:"version"`
				Figures Figures         `json:"figures"`
			}
			d := json.NewDecoder(bytes.NewReader(raw))
			d.DisallowUnknownFields()
			if err := d.Decode(&a); err != nil {
				return nil, fmt.Errorf("answers, object %d: %w", k, err)
			}
			if a.Case == "" {
				return nil, fmt.Errorf("answers, object %d: no case id", k)
			}
			if version, err = versionOf(a.Version); err != nil {
				return nil, fmt.Errorf("answers, object %d: %w", k, err)
			}
			answers[a.Case] = a.Figures
		} else {
			for id, v := range probe {
				if id == "version" {
					if version, err = versionOf(v); err != nil {
						return nil, fmt.Errorf("answers, object %d: %w", k, err)
					}
					continue
				}
				var f Figures
				if err := json.Unmarshal(v, &f); err != nil {
					return nil, fmt.Errorf("answers, object %d: case %s: %w", k, id, err)
				}
				answers[id] = f
			}
		}
		if version != "" && version != Version {
			return nil, fmt.Errorf("answers, object %d: %w: computed for conformance %q, and these cases are conformance %q", k, ErrVersion, version, Version)
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
		if err := requestsNamed(c, got); err != nil {
			return nil, err
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

// requestsNamed checks that every figure of one request that a case's
// answer gives names a request of the case.
func requestsNamed(c Case, f Figures) error {
	ids := map[string]bool{}
	for _, r := range c.Requests {
		ids[r.ID] = true
	}
	for _, name := range f.Names() {
		if id, ok := requestOf(name); ok && !ids[id] {
			return fmt.Errorf("answers: case %q: figure %q names a request %q the case does not have", c.ID, name, id)
		}
	}
	return nil
}

// requestOf returns the request id of a figure of one request:
// "u1" of "request.u1.user_tps".
func requestOf(name string) (string, bool) {
	rest, ok := strings.CutPrefix(name, "request.")
	if !ok {
		return "", false
	}
	i := strings.LastIndex(rest, ".")
	if i <= 0 {
		return "", false
	}
	return rest[:i], true
}

// figureShape is a figure's name with a request's id and a percentile
// read as "*": "request.u1.user_tps" is "request.*.user_tps" and
// "e2e_ms.p29" is "e2e_ms.p*".
func figureShape(name string) string {
	if id, ok := requestOf(name); ok {
		name = "request.*." + name[len("request.")+len(id)+1:]
	}
	if i := strings.LastIndex(name, ".p"); i >= 0 && i+2 < len(name) && name[i+2] >= '0' && name[i+2] <= '9' {
		name = name[:i] + ".p*"
	}
	return name
}

// Python's json.dumps writes a float that is not finite as a bare word
// that JSON does not have. nonFinite turns each of them, outside strings,
// into a string that Value reads as that number.
var nonFiniteWords = []struct{ word, value string }{
	{"-Infinity", `"\u0000-Inf"`},
	{"Infinity", `"\u0000+Inf"`},
	{"NaN", `"\u0000NaN"`},
}

// nonFinite returns b with NaN, Infinity and -Infinity written as the
// strings Value reads; b itself when it has none.
func nonFinite(b []byte) []byte {
	var out []byte
	last := 0
	inString, escaped := false, false
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		case c == '"':
			inString = true
			continue
		case i > 0 && isWordByte(b[i-1]):
			continue
		}
		for _, w := range nonFiniteWords {
			end := i + len(w.word)
			if bytes.HasPrefix(b[i:], []byte(w.word)) && (end == len(b) || !isWordByte(b[end])) {
				out = append(append(out, b[last:i]...), w.value...)
				last, i = end, end-1
				break
			}
		}
	}
	if out == nil {
		return b
	}
	return append(out, b[last:]...)
}

func isWordByte(c byte) bool {
	return c == '_' || c == '.' || c == '+' || c == '-' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}
