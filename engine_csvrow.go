package llmmetrics

import (
	"time"

	"github.com/llmmetrics/llmmetrics/internal/decimal"
)

// Reading a plain CSV row in one pass. Most rows a load generator writes
// are plain: no quotes, no signs, every number present, digits with at
// most one point. Such a row is read field by field as its commas are
// found, each number parsed as its digits are passed over, rather than
// split on its commas first and its fields parsed after: every byte is
// read once. Any row that is not plain (an empty or signed number, too
// many digits, a field too many or too few, a bad status) is left to the
// general path, readCSVRow, which gives its error; a row
// read here gives what that path gives for it.

// fieldKind is what a field of a row holds.
type fieldKind uint8

const (
	fieldID fieldKind = iota
	fieldMessage
	fieldStatus
	fieldPrompt
	fieldCompletion
	fieldSent
	fieldTTFT
	fieldE2E
)

// rowPlan says what each field of a row holds, from the header's columns.
type rowPlan struct {
	kinds  []fieldKind
	status Status // the status of every row when there is no status column
}

// newRowPlan returns the plan of rows with the given columns, fields of
// them.
func newRowPlan(c csvCols, fields int) rowPlan {
	p := rowPlan{kinds: make([]fieldKind, fields)}
	for _, col := range [...]struct {
		at   int
		kind fieldKind
	}{
		{c.id, fieldID}, {c.message, fieldMessage}, {c.status, fieldStatus}, {c.prompt, fieldPrompt},
		{c.completion, fieldCompletion}, {c.sent, fieldSent}, {c.ttft, fieldTTFT}, {c.e2e, fieldE2E},
	} {
		if col.at >= 0 {
			p.kinds[col.at] = col.kind
		}
	}
	// Without a status column, a row's status is that of an empty field,
	// as parseCSVRow reads it.
	p.status, _ = parseStatusBytes(nil)
	return p
}

// read reads a plain row (without its line ending) into rec, a zero
// Record, all but its id and message, which it returns; ok is false, and
// rec not to be used, when the row is not plain.
func (p *rowPlan) read(row []byte, rec *Record) (id, message []byte, ok bool) {
	rec.Status = p.status
	at := 0
	for k, kind := range p.kinds {
		if k > 0 {
			if at == len(row) || row[at] != ',' {
				return nil, nil, false
			}
			at++
		}
		rest := row[at:]
		switch kind {
		case fieldPrompt, fieldCompletion:
			v, n := decimal.Count(rest)
			if n == 0 {
				return nil, nil, false
			}
			if kind == fieldPrompt {
				rec.PromptTokens = v
			} else {
				rec.CompletionTokens = v
			}
			at += n
		case fieldSent, fieldTTFT, fieldE2E:
			m, n, digits, decimals := decimal.Plain(rest)
			ns, exact := decimal.MillisNanos(m, digits, decimals)
			if !exact {
				return nil, nil, false
			}
			v := time.Duration(ns)
			switch kind {
			case fieldSent:
				rec.Sent = v
			case fieldTTFT:
				rec.FirstText = v
			default:
				rec.LastText = v
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
				id = f
			case fieldMessage:
				message = f
			default:
				s, err := parseStatusBytes(f)
				if err != nil {
					return nil, nil, false
				}
				rec.Status = s
			}
			at += n
		}
	}
	return id, message, at == len(row)
}
