package trace

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"time"
)

// readMooncake reads Mooncake's JSON lines: timestamp (ms), input_length,
// output_length and, optionally, hash_ids.
func readMooncake(r io.Reader, b *builder) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 64<<20)
	file := b.t.File
	for line := 1; sc.Scan(); line++ {
		text := bytes.TrimSpace(bytes.TrimPrefix(sc.Bytes(), []byte("\xef\xbb\xbf")))
		if len(text) == 0 {
			continue
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(text, &m); err != nil {
			return &Error{File: file, Line: line, Field: "line", Err: fmt.Errorf("not a JSON object: %v", err)}
		}
		var f [3]field
		for i, k := range []string{"timestamp", "input_length", "output_length"} {
			v, ok := m[k]
			if !ok {
				return &Error{File: file, Line: line, Field: k, Err: ErrMissing}
			}
			f[i] = field{k, string(v)}
		}
		row := Row{Line: line}
		var ok bool
		if row.At, ok = parseTime(f[0].text, time.Millisecond); !ok {
			return &Error{File: file, Line: line, Field: f[0].name, Value: f[0].text, Err: ErrNotNumber}
		}
		for i, n := range []*int{&row.Prompt, &row.Output} {
			if *n, ok = parseLength(f[i+1].text); !ok {
				return &Error{File: file, Line: line, Field: f[i+1].name, Value: f[i+1].text, Err: ErrNotNumber}
			}
		}
		if h, ok := m["hash_ids"]; ok {
			if err := json.Unmarshal(h, &row.Blocks); err != nil {
				return &Error{File: file, Line: line, Field: "hash_ids", Err: fmt.Errorf("%w: want a list of whole numbers", ErrNotNumber)}
			}
		}
		if err := b.add(row, f[0], f[1], f[2]); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	return nil
}
