package observe

import "github.com/llmmetrics/llmmetrics/internal/jsontok"

// This file reads the JSON of one streamed event without decoding it into
// values: it walks objects and arrays over the event's bytes, so that the
// text-bearing decision for an event costs no allocation. Only what a
// decision needs is read (is a string empty, a whole number's value); the
// rest is skipped. A malformed event reads as having nothing in it, and
// a chat or completions stream fails on it (see stream.malformed).

// skip returns the index just past the JSON value that starts at or after
// i, or -1 when there is none.
func skip(b []byte, i int) int {
	i = jsontok.Space(b, i)
	if i >= len(b) {
		return -1
	}
	switch c := b[i]; c {
	case '"':
		end, _, _, err := jsontok.String(b, i)
		if err != nil {
			return -1
		}
		return end
	case '{', '[':
		// One pass over the value, strings and all, without a call per
		// string: the walk that most of an event's cost is spent in.
		depth, inString := 0, false
		for ; i < len(b); i++ {
			c := b[i]
			if inString {
				switch c {
				case '\\':
					i++
				case '"':
					inString = false
				}
				continue
			}
			switch c {
			case '"':
				inString = true
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
		}
		return -1
	default:
		for i < len(b) && !endsScalar[b[i]] {
			i++
		}
		return i
	}
}

// endsScalar holds the bytes that end a number or a literal for skip: the
// end of a member or an element, and white space.
var endsScalar = [256]bool{',': true, '}': true, ']': true, ' ': true, '\n': true, '\r': true, '\t': true}

// members calls fn with each key (its raw bytes, without quotes) and value
// (its raw bytes) of the object b, until fn returns false. It reports
// whether b is an object it could read.
func members(b []byte, fn func(key, val []byte) bool) bool {
	i := jsontok.Space(b, 0)
	if i >= len(b) || b[i] != '{' {
		return false
	}
	i = jsontok.Space(b, i+1)
	if i < len(b) && b[i] == '}' {
		return true
	}
	for i < len(b) {
		if b[i] != '"' {
			return false
		}
		end, _, _, err := jsontok.String(b, i)
		if err != nil {
			return false
		}
		key := b[i+1 : end-1]
		i = jsontok.Space(b, end)
		if i >= len(b) || b[i] != ':' {
			return false
		}
		vs := jsontok.Space(b, i+1)
		ve := skip(b, vs)
		if ve < 0 {
			return false
		}
		if !fn(key, b[vs:ve]) {
			return true
		}
		i = jsontok.Space(b, ve)
		if i < len(b) && b[i] == ',' {
			i = jsontok.Space(b, i+1)
			continue
		}
		return i < len(b) && b[i] == '}'
	}
	return false
}

// elements calls fn with each element of the array b until fn returns
// false. It reports whether b is an array it could read.
func elements(b []byte, fn func(val []byte) bool) bool {
	i := jsontok.Space(b, 0)
	if i >= len(b) || b[i] != '[' {
		return false
	}
	i = jsontok.Space(b, i+1)
	if i < len(b) && b[i] == ']' {
		return true
	}
	for i < len(b) {
		end := skip(b, i)
		if end < 0 {
			return false
		}
		if !fn(b[jsontok.Space(b, i):end]) {
			return true
		}
		i = jsontok.Space(b, end)
		if i < len(b) && b[i] == ',' {
			i = jsontok.Space(b, i+1)
			continue
		}
		return i < len(b) && b[i] == ']'
	}
	return false
}

// field returns the value of key in the object b, or nil.
func field(b []byte, key string) []byte {
	var out []byte
	members(b, func(k, v []byte) bool {
		if string(k) == key {
			out = v
			return false
		}
		return true
	})
	return out
}

// nonEmptyString reports whether v is a JSON string with at least one
// character ("" and null are empty; so is any other kind of value).
func nonEmptyString(v []byte) bool {
	return len(v) > 2 && v[0] == '"'
}

// isNull reports whether v is absent or JSON null.
func isNull(v []byte) bool {
	return len(v) == 0 || string(v) == "null"
}

// wholeNumber returns the value of a non-negative whole JSON number, and
// false for anything else (or a number too large for an int64).
func wholeNumber(v []byte) (int64, bool) {
	if len(v) == 0 {
		return 0, false
	}
	var n int64
	for _, c := range v {
		if c < '0' || c > '9' || n > (1<<62)/10 {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, true
}

// stringValue returns the decoded value of a JSON string without escapes
// as a string (a copy); a string with escapes is decoded by the caller's
// fallback. It is used only at the end of a stream (finish reasons,
// messages), never per chunk.
func stringValue(v []byte) (string, bool) {
	if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
		return "", false
	}
	for _, c := range v[1 : len(v)-1] {
		if c == '\\' {
			return "", false
		}
	}
	return string(v[1 : len(v)-1]), true
}

// object walks the object at the start of b (after white space) in one
// pass: fn gets each key and b from the member's value on, and returns
// the length of the value when it read the value itself (so that it is
// not scanned twice), or 0 to have object skip it. object returns the
// index just past the object, or -1 when b does not start with an object
// it could read (or fn returned -1).
func object(b []byte, fn func(key, rest []byte) int) int {
	i := jsontok.Space(b, 0)
	if i >= len(b) || b[i] != '{' {
		return -1
	}
	i = jsontok.Space(b, i+1)
	if i < len(b) && b[i] == '}' {
		return i + 1
	}
	for i < len(b) {
		if b[i] != '"' {
			return -1
		}
		end, _, _, err := jsontok.String(b, i)
		if err != nil {
			return -1
		}
		key := b[i+1 : end-1]
		i = jsontok.Space(b, end)
		if i >= len(b) || b[i] != ':' {
			return -1
		}
		vs := jsontok.Space(b, i+1)
		ve := vs + fn(key, b[vs:])
		switch {
		case ve < vs:
			return -1
		case ve == vs:
			if ve = skip(b, vs); ve < 0 {
				return -1
			}
		}
		i = jsontok.Space(b, ve)
		if i < len(b) && b[i] == ',' {
			i = jsontok.Space(b, i+1)
			continue
		}
		if i < len(b) && b[i] == '}' {
			return i + 1
		}
		return -1
	}
	return -1
}

// array walks the array at the start of b as object walks an object: fn
// gets b from each element on and returns its length, or 0 to have it
// skipped.
func array(b []byte, fn func(rest []byte) int) int {
	i := jsontok.Space(b, 0)
	if i >= len(b) || b[i] != '[' {
		return -1
	}
	i = jsontok.Space(b, i+1)
	if i < len(b) && b[i] == ']' {
		return i + 1
	}
	for i < len(b) {
		ve := i + fn(b[i:])
		switch {
		case ve < i:
			return -1
		case ve == i:
			if ve = skip(b, i); ve < 0 {
				return -1
			}
		}
		i = jsontok.Space(b, ve)
		if i < len(b) && b[i] == ',' {
			i = jsontok.Space(b, i+1)
			continue
		}
		if i < len(b) && b[i] == ']' {
			return i + 1
		}
		return -1
	}
	return -1
}

// valueAt returns the value at the start of rest and its length; nil and
// 0 when there is none.
func valueAt(rest []byte) ([]byte, int) {
	e := skip(rest, 0)
	if e <= 0 {
		return nil, 0
	}
	return rest[:e], e
}

// walked returns what object and array take from a callback that walked
// a nested value with them: its length, or 0 (skip it) when it was not of
// the kind walked, so that a member of another kind is skipped as before.
func walked(end int) int { return max(end, 0) }
