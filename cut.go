package llmmetrics

import (
	"bytes"

	"github.com/llmmetrics/llmmetrics/internal/jsonline"
)

// A Cut is an input that ends inside a line: its last line has no newline
// and is the unfinished beginning of a JSON object, or of a CSV row (see
// ReadOptions.ReadCSV; one cut in its last field may read whole), as a
// writer killed mid-write or stopped by a full disk leaves it. The unfinished
// line is neither a record nor an error; Summary.Completeness says the
// file is truncated. A last line that is not such a beginning (a stray
// character, an object with a key the format does not know) stays an
// error, as any malformed line does.
type Cut struct {
	Line  int    // the unfinished line's number, from 1
	Bytes int    // its bytes
	Of    string // what it began: "record", "header" or "end line"; "row" in CSV
	After int    // the whole records before it (set aside ones included)
}

// openLine returns the number of the input's last line when data is the
// input's last block and ends without a newline, or −1.
func openLine(b *block) int {
	if n := len(b.Data); n == 0 || b.Data[n-1] == '\n' || b.Err != nil {
		return -1
	}
	return b.FirstLine + b.Lines() - 1
}

// cutOf returns the Cut of the input's unfinished last line t, numbered
// line, the last of data, or nil when t is whole or not the beginning of
// a JSON value.
func cutOf(t, data []byte, line int) *Cut {
	if !jsonline.Unfinished(t) {
		return nil
	}
	c := &Cut{Line: line, Bytes: len(data) - (bytes.LastIndexByte(data, '\n') + 1), Of: "record"}
	switch {
	case isEnd(t):
		c.Of = "end line"
	case isHeader(t):
		c.Of = "header"
	}
	return c
}
