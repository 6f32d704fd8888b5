// Package csvrow reads a row of the root's CSV format in one pass. Most
// rows a load generator writes are plain: no quotes, no signs, every
// number present, digits with at most one point. Such a row is read field
// by field as its commas are found, each number parsed as its digits are
// passed over, rather than split on its commas first and its fields parsed
// after: every byte is read once. Any row that is not plain (an empty or
// signed number, too many digits, a field too many or too few, a bad
// status) is left to the root's general path, which splits it (Split),
// parses each field apart and gives its error; a row read here gives what
// that path gives for it, which the root's FuzzPlainRow checks.
package csvrow

import (
	"bytes"
	"sync"
	"time"

	"github.com/llmmetrics/llmmetrics/internal/decimal"
)

// Columns are where the format's columns are in a row, -1 for an optional
// column that is absent.
type Columns struct {
	ID, Prompt, Completion, TTFT, E2E, Sent, Status, Message int
}

// Fields are the fields of a row, at the columns' positions: a row has at
// most one field for each column the format knows.
type Fields [8][]byte

// Split splits row on its commas into f, with the offset of each field in
// the row in at, and reports whether it has n fields exactly.
func Split(row []byte, n int, f *Fields, at *[8]int) bool {
	k, start := 0, 0
	for i := 0; ; i++ {
		if i == len(row) || row[i] == ',' {
			if k == n {
				return false // one too many
			}
			f[k], at[k] = row[start:i], start
			k++
			start = i + 1
			if i == len(row) {
				break
			}
		}
	}
	return k == n
}

// A Row is what a plain row gives: its id and message are bytes of the
// row.
type Row struct {
	ID, Message        []byte
	Status             uint8
	Sent, First, Last  time.Duration
	Prompt, Completion int
}

// kind is what a field of a row holds.
type kind uint8

const (
	fieldID kind = iota
	fieldMessage
	fieldStatus
	fieldPrompt
	fieldCompletion
	fieldSent
	fieldTTFT
	fieldE2E
)

// A Plan says what each field of a row holds, from the header's columns.
type Plan struct {
	kinds    []kind
	statuses []string // the names of the statuses, by value
	empty    uint8    // the status of an empty field, and of every row when there is no status column
}

// NewPlan returns the plan of rows of n fields with the given columns.
// statuses are the names of the statuses, by value; empty is the status
// of an empty field, and of every row without a status column.
func NewPlan(c Columns, n int, statuses []string, empty uint8) Plan {
	p := Plan{kinds: make([]kind, n), statuses: statuses, empty: empty}
	for _, col := range [...]struct {
		at   int
		kind kind
	}{
		{c.ID, fieldID}, {c.Message, fieldMessage}, {c.Status, fieldStatus}, {c.Prompt, fieldPrompt},
		{c.Completion, fieldCompletion}, {c.Sent, fieldSent}, {c.TTFT, fieldTTFT}, {c.E2E, fieldE2E},
	} {
		if col.at >= 0 {
			p.kinds[col.at] = col.kind
		}
	}
	return p
}

// Read reads a plain row (without its line ending) into r, a zero Row, and
// reports whether it is plain: when it is not, r is not to be used.
func (p *Plan) Read(row []byte, r *Row) bool {
	r.Status = p.empty
	at := 0
	for k, kind := range p.kinds {
		if k > 0 {
			if at == len(row) || row[at] != ',' {
				return false
			}
			at++
		}
		rest := row[at:]
		switch kind {
		case fieldPrompt, fieldCompletion:
			v, n := decimal.Count(rest)
			if n == 0 {
				return false
			}
			if kind == fieldPrompt {
				r.Prompt = v
			} else {
				r.Completion = v
			}
			at += n
		case fieldSent, fieldTTFT, fieldE2E:
			m, n, digits, decimals := decimal.Plain(rest)
			ns, exact := decimal.MillisNanos(m, digits, decimals)
			if !exact || kind == fieldSent && n == 0 { // a blank send is an error (see Parse)
				return false
			}
			v := time.Duration(ns)
			switch kind {
			case fieldSent:
				r.Sent = v
			case fieldTTFT:
				r.First = v
			default:
				r.Last = v
			}
			at += n
		default:
			n := 0
			for n < len(rest) && rest[n] != ',' {
				n++
			}
			f := rest[:n]
			switch kind {
			case fieldID:
				r.ID = f
			case fieldMessage:
				r.Message = f
			default:
				if !p.status(f, r) {
					return false
				}
			}
			at += n
		}
	}
	return at == len(row)
}

// status reads a status field into r.
func (p *Plan) status(f []byte, r *Row) bool {
	if len(f) == 0 {
		r.Status = p.empty
		return true
	}
	for i, name := range p.statuses {
		if string(f) == name {
			r.Status = uint8(i)
			return true
		}
	}
	return false
}

// Rows calls fn with each line of data, a block of whole lines numbered
// from first, but blank ones, and returns the number of the line after the
// last. A line with a double quote is given as it is, with quoted set, for
// encoding/csv to read; any other without its line ending ("\n" or
// "\r\n", and a "\r" ending the input, as encoding/csv takes them).
func Rows(data []byte, first int, fn func(row []byte, line int, quoted bool)) int {
	// Most blocks have no quote at all: their rows are not each searched
	// for one.
	quotes := bytes.IndexByte(data, '"') >= 0
	line := first
	for ; len(data) > 0; line++ {
		row := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			row, data = data[:i+1], data[i+1:]
		} else {
			data = nil
		}
		if quotes && bytes.IndexByte(row, '"') >= 0 {
			fn(row, line, true)
			continue
		}
		if k := len(row) - 1; k >= 0 && row[k] == '\n' {
			row = row[:k]
		}
		if k := len(row) - 1; k >= 0 && row[k] == '\r' {
			row = row[:k]
		}
		if len(row) > 0 {
			fn(row, line, false)
		}
	}
	return line
}

// Strings are the ids and messages of a block's rows, copied as they are
// read and cut from one string at the end: one string a block, rather
// than two a row. Get one from the pool with GetStrings, and put it back
// with Put: on a large file, new memory for every block would be memory
// the system has to provide fresh, many times over, before the collector
// frees any.
type Strings struct {
	text  []byte
	spans [][4]int32
}

var stringsPool = sync.Pool{New: func() any { return new(Strings) }}

// GetStrings returns empty Strings from the pool.
func GetStrings() *Strings {
	s := stringsPool.Get().(*Strings)
	s.text, s.spans = s.text[:0], s.spans[:0]
	return s
}

// Put puts s back in the pool, for another block.
func (s *Strings) Put() { stringsPool.Put(s) }

// Add adds the id and message of the next row.
func (s *Strings) Add(id, message []byte) {
	var sp [4]int32
	sp[0] = int32(len(s.text))
	s.text = append(s.text, id...)
	sp[1], sp[2] = int32(len(s.text)), int32(len(s.text))
	s.text = append(s.text, message...)
	sp[3] = int32(len(s.text))
	s.spans = append(s.spans, sp)
}

// Skip passes over the next row, which has its strings already.
func (s *Strings) Skip() { s.spans = append(s.spans, [4]int32{-1}) }

// Cut calls set with the index and strings of each row added (not
// skipped), cut from one string.
func (s *Strings) Cut(set func(k int, id, message string)) {
	all := string(s.text)
	for k, sp := range s.spans {
		if sp[0] >= 0 {
			set(k, all[sp[0]:sp[1]], all[sp[2]:sp[3]])
		}
	}
}

// MaxTime is the bound on times, in nanoseconds: the root's MaxTime.
const MaxTime = 1 << 61

// Parse parses a row's fields, f, into r, a zero Row, all but its id and
// message, as the format reads them: the status is statuses[k] for k, and
// statuses[0] when empty; a failed row may leave its counts empty, and a
// row without tokens its times. The first field that cannot be read stops
// it: Parse returns its column and the format's name of it, and ok false;
// the caller reads the field again for its error.
func Parse(f *Fields, c Columns, statuses []string, r *Row) (column int, field string, ok bool) {
	get := func(at int) []byte {
		if at >= 0 {
			return f[at]
		}
		return nil
	}
	plan := Plan{statuses: statuses}
	if !plan.status(get(c.Status), r) {
		return c.Status, "status", false
	}
	var why decimal.Why
	var ns int64
	if c.Sent >= 0 { // in the header, every row has one: a blank would be read as a send at 0
		if ns, why = decimal.Millis(get(c.Sent), MaxTime); why != decimal.OK {
			return c.Sent, "sent_ms", false
		}
		r.Sent = time.Duration(ns)
	}
	okRow := r.Status == 0
	if s := get(c.Prompt); len(s) > 0 || okRow {
		if r.Prompt, why = decimal.Int32(s); why != decimal.OK {
			return c.Prompt, "prompt_tokens", false
		}
	}
	if s := get(c.Completion); len(s) > 0 || okRow {
		if r.Completion, why = decimal.Int32(s); why != decimal.OK {
			return c.Completion, "completion_tokens", false
		}
	}
	needTimes := okRow && r.Completion > 0
	// The times' fields apart from where they go: a field name returned
	// beside a pointer into r would have r leak, and a caller's Row be
	// made on the heap.
	to := [...]*time.Duration{&r.First, &r.Last}
	for k, t := range [...]struct {
		at    int
		field string
	}{{c.TTFT, "TTFT_ms"}, {c.E2E, "E2E_ms"}} {
		if s := get(t.at); len(s) > 0 || needTimes {
			if ns, why = decimal.Millis(s, MaxTime); why != decimal.OK {
				return t.at, t.field, false
			}
			*to[k] = time.Duration(ns)
		}
	}
	return 0, "", true
}

// Cut reports whether a row that its writer may have been stopped inside,
// of which present are the fields written (the last possibly cut short),
// can be the beginning of a row of n fields that Parse reads: whether the
// fields before the last are read, with the missing ones and the last
// given values that any row may have (a count or time of 0, and the
// status statuses[1], a failure, which leaves counts and times optional).
// The last field is not judged: it may be any beginning of its value.
func Cut(present []string, n int, c Columns, statuses []string) bool {
	if len(present) == 0 || len(present) > n {
		return false
	}
	var f Fields
	for k := range n {
		switch {
		case k < len(present)-1:
			f[k] = []byte(present[k])
		case k == c.Status:
			f[k] = []byte(statuses[1])
		case k != c.ID && k != c.Message:
			f[k] = []byte("0")
		}
	}
	var r Row
	_, _, ok := Parse(&f, c, statuses, &r)
	return ok
}
