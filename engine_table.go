package llmmetrics

import (
	"encoding/binary"
	"iter"
	"math"
	"math/bits"
	"sort"
	"time"
	"unsafe"

	"github.com/llmmetrics/llmmetrics/internal/hugepage"
)

// A table holds records column by column: records that have none of the
// parts a CSV row cannot give (chunk arrivals and their tokens, max_tokens,
// client facts, a warm-up mark), as a CSV file's rows are read. A row takes
// about 45 bytes with its id, where a Record takes 144 bytes and its id:
// what lets a CSV file of millions of rows be summarized within twice its
// size in memory. Summarize reads the rows as Records decoded a window at
// a time (see source); decoding a row gives back the Record it was made
// from, exactly.
//
// The rows are kept in blocks, each filled by one reader goroutine: a
// block of consecutive rows, with one string of ids. From a file whose
// lines were counted, the blocks' columns are windows of columns made for
// every line at once (see newTableRoom).
type table struct {
	blocks []*tableBlock
	first  []int // first[b] is the index of block b's first row
	n      int
	tail   *tableBlock // rows added one at a time, not yet a block (see flush)
}

// tableBlock is a run of consecutive rows of a table.
type tableBlock struct {
	ids               string   // the rows' ids, one after another
	idEnd             []uint32 // row k's id is ids[idEnd[k−1]:idEnd[k]]
	status            []Status
	sent, first, last []time.Duration
	prompt            []int32
	completion        []int32
	// rare marks (one bit a row) the rows with parts few rows have, kept
	// in rareParts: a message, or a count beyond int32 (which validation
	// rejects, but the table keeps as it was read).
	rare      []uint64
	rareParts []rareRow
	lines     []lineJump // where the rows' line numbers jump (see line)

	idText   []byte // the ids while the block is filled
	lastLine int    // the line of the last row added
	n        int    // the rows added; the columns have room for more until finish
}

// rareRow holds the parts of row row that its columns cannot.
type rareRow struct {
	row                int
	message            string
	prompt, completion int
}

// lineJump says that row row is on line line, and the rows after it on the
// lines after it, up to the next jump.
type lineJump struct{ row, line int }

// maxBlockIDs bounds the bytes of ids in one block, which idEnd indexes.
const maxBlockIDs = math.MaxUint32

// newTableBlock returns an empty block with room for n rows.
func newTableBlock(n int) *tableBlock {
	b := &tableBlock{idText: make([]byte, 0, idRoom*n)}
	b.room(n)
	return b
}

// idRoom is the bytes of id a block makes room for at first for each row;
// longer ids grow the block's id text. In a window of a table's room (see
// newTableRoom), the room of a block whose ids outgrow it is then left
// unused: 8 bytes a row more, for ids of more than 8 bytes on average
// (a UUID takes 36).
const idRoom = 8

// newTableRoom returns a block whose columns have room for n rows, made
// at once and in huge pages, to be handed out in windows (see window):
// when a file's lines are counted before it is read, every block of its
// rows is a window of one such block, and its memory is asked of the system
// 2 MiB at a time instead of 4 KiB at a time.
func newTableRoom(n int) *tableBlock {
	return &tableBlock{
		idText:     hugepage.Make[byte](idRoom*n, idRoom*n),
		idEnd:      hugepage.Make[uint32](n, n),
		status:     hugepage.Make[Status](n, n),
		sent:       hugepage.Make[time.Duration](n, n),
		first:      hugepage.Make[time.Duration](n, n),
		last:       hugepage.Make[time.Duration](n, n),
		prompt:     hugepage.Make[int32](n, n),
		completion: hugepage.Make[int32](n, n),
	}
}

// window returns an empty block whose columns are those of b from row at,
// with room for n rows (and their ids, while these average idRoom bytes at
// most). b's rows there must not have been written.
func (b *tableBlock) window(at, n int) *tableBlock {
	end := at + n
	return &tableBlock{
		idText:     b.idText[idRoom*at : idRoom*at : idRoom*end],
		idEnd:      b.idEnd[at:end:end],
		status:     b.status[at:end:end],
		sent:       b.sent[at:end:end],
		first:      b.first[at:end:end],
		last:       b.last[at:end:end],
		prompt:     b.prompt[at:end:end],
		completion: b.completion[at:end:end],
		rare:       make([]uint64, (n+63)/64),
	}
}

// room makes the columns n rows long, keeping the rows they hold.
func (b *tableBlock) room(n int) {
	b.idEnd = lengthen(b.idEnd, n)
	b.status = lengthen(b.status, n)
	b.sent, b.first, b.last = lengthen(b.sent, n), lengthen(b.first, n), lengthen(b.last, n)
	b.prompt, b.completion = lengthen(b.prompt, n), lengthen(b.completion, n)
	b.rare = lengthen(b.rare, (n+63)/64)
}

// lengthen returns s made n long, with exactly the room for n. The copy
// is kept apart from the make: written together, the compiler would clear
// the new slice's memory past what is copied, touching every page of it at
// once, where fresh memory needs no clearing.
func lengthen[T any](s []T, n int) []T {
	t := make([]T, n)
	if len(s) > 0 {
		copy(t, s)
	}
	return t
}

// len returns the number of rows in the block.
func (b *tableBlock) len() int { return b.n }

// fits reports whether the block can take a row with the given id.
func (b *tableBlock) fits(id string) bool {
	return uint64(len(b.idText))+uint64(len(id)) <= maxBlockIDs
}

// add adds a row, r, on line line. A table holds only what a CSV row
// gives: r's other parts (chunk arrivals and tokens, max_tokens, client
// facts, a warm-up mark) are not kept.
func (b *tableBlock) add(r *Record, line int) { addRow(b, r, r.ID, r.Message, line) }

// addRow adds a row: r with the given id and message (r's own are not
// read), on line line. Each column is written at the row's index, into
// the room newTableBlock made, rather than appended to.
func addRow[S string | []byte](b *tableBlock, r *Record, id, message S, line int) {
	k := b.n
	if k == len(b.status) {
		b.room(max(64, 2*k))
	}
	if k == 0 || line != b.lastLine+1 {
		b.lines = append(b.lines, lineJump{k, line})
	}
	b.lastLine = line
	b.idText = append(b.idText, id...)
	b.idEnd[k] = uint32(len(b.idText))
	b.status[k] = r.Status
	b.sent[k], b.first[k], b.last[k] = r.Sent, r.FirstText, r.LastText
	p, c := int32(r.PromptTokens), int32(r.CompletionTokens)
	if len(message) > 0 || int(p) != r.PromptTokens || int(c) != r.CompletionTokens {
		b.rare[k/64] |= 1 << (k % 64)
		b.rareParts = append(b.rareParts, rareRow{k, string(message), r.PromptTokens, r.CompletionTokens})
		p, c = 0, 0
	}
	b.prompt[k], b.completion[k] = p, c
	b.n++
}

// finish cuts the columns to the rows added and makes the block's ids one
// string, without a copy: the bytes are never written again.
func (b *tableBlock) finish() {
	n := b.n
	b.idEnd, b.status = b.idEnd[:n], b.status[:n]
	b.sent, b.first, b.last = b.sent[:n], b.first[:n], b.last[:n]
	b.prompt, b.completion, b.rare = b.prompt[:n], b.completion[:n], b.rare[:(n+63)/64]
	b.ids, b.idText = unsafe.String(unsafe.SliceData(b.idText), len(b.idText)), nil
}

// id returns row k's id.
func (b *tableBlock) id(k int) string {
	start := uint32(0)
	if k > 0 {
		start = b.idEnd[k-1]
	}
	return b.ids[start:b.idEnd[k]]
}

// record sets *r to row k, with its id and message when ids is set. It
// sets only the fields a table holds: r's others must be zero, as they
// are in a Record a table decodes into again and again (a window), which
// is cheaper than clearing it every time.
func (b *tableBlock) record(k int, r *Record, ids bool) {
	r.Status = b.status[k]
	r.Sent, r.FirstText, r.LastText = b.sent[k], b.first[k], b.last[k]
	r.PromptTokens, r.CompletionTokens = int(b.prompt[k]), int(b.completion[k])
	if ids {
		r.ID, r.Message = b.id(k), ""
	}
	if b.rare[k/64]>>(k%64)&1 != 0 {
		x := b.rareParts[sort.Search(len(b.rareParts), func(j int) bool { return b.rareParts[j].row >= k })]
		r.PromptTokens, r.CompletionTokens = x.prompt, x.completion
		if ids {
			r.Message = x.message
		}
	}
}

// line returns the line row k is on.
func (b *tableBlock) line(k int) int {
	j := sort.Search(len(b.lines), func(j int) bool { return b.lines[j].row > k }) - 1
	return b.lines[j].line + k - b.lines[j].row
}

// add appends a block of rows to the table, finishing it.
func (t *table) add(b *tableBlock) {
	t.flush()
	t.push(b)
}

// addRecord appends a row, r, on line line.
func (t *table) addRecord(r *Record, line int) {
	if t.tail != nil && !t.tail.fits(r.ID) {
		t.flush()
	}
	if t.tail == nil {
		t.tail = newTableBlock(0)
	}
	t.tail.add(r, line)
}

// flush makes the rows added one at a time a block. t may be nil.
func (t *table) flush() {
	if t != nil && t.tail != nil {
		t.push(t.tail)
		t.tail = nil
	}
}

// push appends a block, finishing it.
func (t *table) push(b *tableBlock) {
	if b.len() == 0 {
		return
	}
	b.finish()
	t.blocks = append(t.blocks, b)
	t.first = append(t.first, t.n)
	t.n += b.len()
}

// len returns the number of rows.
func (t *table) len() int { return t.n }

// find returns the index of the block that holds row i, and i's row in it.
func (t *table) find(i int) (j, k int) {
	j = sort.Search(len(t.first), func(j int) bool { return t.first[j] > i }) - 1
	return j, i - t.first[j]
}

// block returns the block that holds row i, and i's row in it.
func (t *table) block(i int) (*tableBlock, int) {
	j, k := t.find(i)
	return t.blocks[j], k
}

// decode sets w, whose records are zero but for the fields a table holds,
// to the rows from base on, with their ids and messages when ids is set.
func (t *table) decode(base int, w []Record, ids bool) {
	j, k := t.find(base)
	b := t.blocks[j]
	for i := range w {
		if k == b.len() {
			j++
			b, k = t.blocks[j], 0
		}
		b.record(k, &w[i], ids)
		k++
	}
}

// id returns row i's id.
func (t *table) id(i int) string {
	b, k := t.block(i)
	return b.id(k)
}

// line returns the line row i is on.
func (t *table) line(i int) int {
	b, k := t.block(i)
	return b.line(k)
}

// okColumns returns, for each of the given columns, the values of the rows
// in CategoryOK, in input order, as segments of the table's own column:
// one segment for each run of ok rows in a block, so that a sample of them
// needs no copy. (A row has no chunk arrivals: its TTFT is its first text,
// its E2E its last.) It returns false when the runs are too short for
// their segments to take less memory than copies would.
func (t *table) okColumns(cat []Category, cols ...column) (segs [][][]time.Duration, fits bool) {
	// A segment takes 24 bytes, where a copy takes 8 for each row:
	// segments must average more than 3 rows; at 16, they take a fifth of
	// the copies' memory at most.
	const minRun = 16
	runs, ok := t.okRuns(cat)
	if runs > ok/minRun {
		return nil, false
	}
	segs = make([][][]time.Duration, len(cols))
	for c := range cols {
		segs[c] = make([][]time.Duration, 0, runs)
	}
	for b, run := range t.okSpans(cat) {
		for c, col := range cols {
			segs[c] = append(segs[c], col(b)[run[0]:run[1]:run[1]])
		}
	}
	return segs, true
}

// A column is one of a block's columns of times.
type column func(b *tableBlock) []time.Duration

// The columns of times.
func sentColumn(b *tableBlock) []time.Duration  { return b.sent }
func firstColumn(b *tableBlock) []time.Duration { return b.first }
func lastColumn(b *tableBlock) []time.Duration  { return b.last }

// okRuns returns the number of runs of rows in CategoryOK, none of them
// across two blocks, and the number of such rows.
func (t *table) okRuns(cat []Category) (runs, ok int) {
	for _, run := range t.okSpans(cat) {
		runs, ok = runs+1, ok+run[1]-run[0]
	}
	return runs, ok
}

// okSpans yields each run of rows in CategoryOK, none of them across two
// blocks: its block and the rows [lo, hi) of it.
func (t *table) okSpans(cat []Category) iter.Seq2[*tableBlock, [2]int] {
	return func(yield func(*tableBlock, [2]int) bool) {
		for j, b := range t.blocks {
			in := cat[t.first[j] : t.first[j]+b.n]
			for k := 0; k < len(in); {
				if in[k] != CategoryOK {
					k++
					continue
				}
				end := okEnd(in, k)
				if !yield(b, [2]int{k, end}) {
					return
				}
				k = end
			}
		}
	}
}

// okEnd returns the index of the first of cat from k on that is not
// CategoryOK, or len(cat). Runs of ok rows are long: they are read eight
// categories at a time, CategoryOK being zero.
func okEnd(cat []Category, k int) int {
	for ; k+8 <= len(cat); k += 8 {
		if w := binary.LittleEndian.Uint64(unsafe.Slice((*byte)(&cat[k]), 8)); w != 0 {
			return k + bits.TrailingZeros64(w)/8
		}
	}
	for k < len(cat) && cat[k] == CategoryOK {
		k++
	}
	return k
}

// CategoryOK must be zero for okEnd: otherwise this index is out of range.
var _ = [1]int{}[CategoryOK]
