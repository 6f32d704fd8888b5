// Package jsonobj builds JSON objects whose keys keep the order they are
// given in, for outputs that a reader compares line by line.
package jsonobj

import (
	"bytes"
	"encoding/json"
)

// A Field is one key and its value. It is a plain struct type, not a
// defined one, so that an object is written {{"key", value}, …} without
// field names in the packages that use it.
type Field = struct {
	K string
	V any
}

// An Object is written as a JSON object with its fields in order.
type Object []Field

// MarshalJSON writes the fields in order; a value is written as
// encoding/json writes it.
func (o Object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, f := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(f.K)
		b.Write(k)
		b.WriteByte(':')
		v, err := json.Marshal(f.V)
		if err != nil {
			return nil, err
		}
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}
