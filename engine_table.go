package llmmetrics

import "github.com/llmmetrics/llmmetrics/internal/table"

// A table (internal/table) holds records column by column: records that
// have none of the parts a CSV row cannot give (chunk arrivals and their
// tokens, max_tokens, client facts, a warm-up mark), as a CSV file's rows
// are read. Summarize reads the rows as Records decoded a window at a time
// (see source); decoding a row gives back the Record it was made from,
// exactly.

// addToTable adds a row, r, on line line, to b. A table holds only what a
// CSV row gives: r's other parts are not kept.
func addToTable(b *table.Block, r *Record, line int) {
	table.Add(b, r.ID, r.Message, uint8(r.Status), r.Sent, r.FirstText, r.LastText, r.PromptTokens, r.CompletionTokens, line)
}

// decodeRows sets w, whose records are zero but for the fields a table
// holds, to t's rows from base on, with their ids and messages when ids is
// set. Only the fields a table holds are set: the others stay zero, as
// they are in a Record decoded into again and again (a window), which is
// cheaper than clearing it every time.
func decodeRows(t *table.Table, base int, w []Record, ids bool) {
	j, k := t.Find(base)
	b := t.Blocks[j]
	for i := range w {
		if k == b.Len() {
			j++
			b, k = t.Blocks[j], 0
		}
		r := &w[i]
		r.Status = Status(b.Status[k])
		r.Sent, r.FirstText, r.LastText = b.Sent[k], b.First[k], b.Last[k]
		r.PromptTokens, r.CompletionTokens = int(b.Prompt[k]), int(b.Completion[k])
		if ids {
			r.ID, r.Message = b.ID(k), ""
		}
		if b.Rare(k) {
			p, c, message := b.RareParts(k)
			r.PromptTokens, r.CompletionTokens = p, c
			if ids {
				r.Message = message
			}
		}
		k++
	}
}

// eachFailedRow calls f with each row of t whose status is not ok, in
// order, decoded with its id and message. Only the status column is read
// for the others.
func eachFailedRow(t *table.Table, f func(Record)) {
	t.EachBut(uint8(StatusOK), func(i int) {
		var r [1]Record
		decodeRows(t, i, r[:], withIDs)
		f(r[0])
	})
}

// CategoryOK must be zero for table.OKColumns, which takes the rows whose
// category is zero: otherwise this index is out of range.
var _ = [1]int{}[CategoryOK]
