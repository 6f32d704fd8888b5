package jsonline

import (
	"bytes"
	"encoding/json"
	"fmt"
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

// DecodeKeyed decodes line t, {key: {...}} (key unquoted), strictly (see
// DecodeStrict): a key other than key, or a null value, is an error.
func DecodeKeyed[T any](t []byte, key string) (*T, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(t, &m); err != nil {
		return nil, err
	}
	for k := range m {
		if k != key {
			return nil, fmt.Errorf("json: unknown field %q", k)
		}
	}
	if raw := m[key]; raw != nil && string(raw) != "null" {
		v := new(T)
		return v, DecodeStrict(raw, v)
	}
	return nil, fmt.Errorf("%s is null", key)
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
