package jsonline

import (
	"bytes"
	"encoding/json"
	"io"
)

// A run's header and its end line are lines of one key,
// {"llmmetrics_run": {...}} and {"llmmetrics_end": {...}}, read strictly
// and written on one line.

// Keyed reports whether line t is an object whose first key is key
// (quoted: `"llmmetrics_run"`), with only spaces and tabs before it.
func Keyed(t []byte, key string) bool {
	return len(t) > 0 && t[0] == '{' && bytes.HasPrefix(bytes.TrimLeft(t[1:], " \t"), []byte(key))
}

// DecodeStrict decodes the JSON value of t into v, as encoding/json does
// with DisallowUnknownFields: a key v has no field for is an error.
func DecodeStrict(t []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(t))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

// WriteKeyed writes {key: v}, v as encoding/json writes it, and a
// newline to w.
func WriteKeyed(w io.Writer, key string, v any) error {
	b, err := json.Marshal(map[string]any{key: v})
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}
