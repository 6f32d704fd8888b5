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
	for len(w) > 0 {
		b := t.Blocks[j]
		n := min(len(w), b.Len()-k)
		decodeSegment(b, k, w[:n], ids)
		w, j, k = w[n:], j+1, 0
	}
}

// decodeSegment sets w to b's rows from k on, as decodeRows does: the
// columns are cut to w's length first, so that reading row i of each
// needs no test of its own; a block without send times has none to cut.
func decodeSegment(b *table.Block, k int, w []Record, ids bool) {
	n := len(w)
	status, sent, first, last := b.Status[k:k+n], b.SentOf(k, n), b.First[k:k+n], b.Last[k:k+n]
	prompt, completion := b.Prompt[k:k+n], b.Completion[k:k+n]
	for i := range w {
		r := &w[i]
		r.Status, r.Sent, r.FirstText, r.LastText = Status(status[i]), 0, first[i], last[i]
		if sent != nil {
			r.Sent = sent[i]
		}
		r.PromptTokens, r.CompletionTokens = int(prompt[i]), int(completion[i])
		if ids {
			r.ID, r.Message = b.ID(k+i), ""
		}
		if b.Rare(k + i) {
			p, c, message := b.RareParts(k + i)
			r.PromptTokens, r.CompletionTokens = p, c
			if ids {
				r.Message = message
			}
		}
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
