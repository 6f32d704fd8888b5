// Package table holds rows of a CSV run column by column: a status, three
// times, two token counts, an id and a rare message a row, as a CSV file's
// rows are read. A row takes about 45 bytes with its id, where the root
// package's Record takes 144 bytes and its id: what lets a CSV file of
// millions of rows be summarized within twice its size in memory. A file
// without send times (no sent_ms column) keeps no column of them (see
// Block.SentOf): 37 bytes a row. The root package decodes the rows back
// into Records a window at a time; decoding a row gives back exactly what
// was added.
//
// The rows are kept in blocks, each filled by one reader goroutine: a block
// of consecutive rows, with one string of ids. From a file whose lines were
// counted, the blocks' columns are windows of columns made for every line
// at once (see NewRoom).
//
// A status is a plain byte here; the root package converts its Status at
// the boundary, at no cost.
package table

import (
	"math"
	"sort"
	"time"
	"unsafe"

	"github.com/llmmetrics/llmmetrics/internal/hugepage"
)

// A Table is a list of blocks of rows. The zero Table is empty.
type Table struct {
	Blocks []*Block
	// NoSends says the rows have no send times: the blocks Tail makes
	// keep none (see Block.SentOf), as must those added.
	NoSends bool

	first []int // first[b] is the index of block b's first row
	n     int
	tail  *Block // rows added one at a time, not yet a block (see Flush)
}

// A Block is a run of consecutive rows of a table. Its columns hold row k
// at index k; a row whose message or counts the columns cannot hold is
// rare (see Rare). Sent is empty in a block without send times (see
// SentOf).
type Block struct {
	Status            []uint8
	Sent, First, Last []time.Duration
	Prompt            []int32
	Completion        []int32
	sends             bool // whether Sent is kept

	ids   string   // the rows' ids, one after another
	idEnd []uint32 // row k's id is ids[idEnd[k−1]:idEnd[k]]
	// rare marks (one bit a row) the rows with parts few rows have, kept
	// in rareParts: a message, or a count beyond int32 (which validation
	// rejects, but the table keeps as it was read).
	rare      []uint64
	rareParts []rareRow
	lines     []lineJump // where the rows' line numbers jump (see Line)

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

// NewBlock returns an empty block with room for n rows, with a column of
// send times when sends is set.
func NewBlock(n int, sends bool) *Block {
	b := &Block{idText: make([]byte, 0, idRoom*n), sends: sends}
	b.room(n)
	return b
}

// idRoom is the bytes of id a block makes room for at first for each row;
// longer ids grow the block's id text. In a window of a table's room (see
// NewRoom), the room of a block whose ids outgrow it is then left unused:
// 8 bytes a row more, for ids of more than 8 bytes on average (a UUID
// takes 36).
const idRoom = 8

// NewRoom returns a block whose columns have room for n rows, made at once
// and in huge pages, to be handed out in windows (see Window): when a
// file's lines are counted before it is read, every block of its rows is
// a window of one such block, and its memory is asked of the system 2 MiB
// at a time instead of 4 KiB at a time. Without sends, it has no column of
// send times (see SentOf).
func NewRoom(n int, sends bool) *Block {
	// The columns are made in this order, the send times in their place:
	// with them made last, the resident peak of report on a 1 M-row file
	// was 1.7 MB higher, the columns' huge pages falling otherwise.
	b := &Block{sends: sends}
	b.idText, b.idEnd = hugepage.Make[byte](idRoom*n, idRoom*n), hugepage.Make[uint32](n, n)
	b.Status = hugepage.Make[uint8](n, n)
	if sends {
		b.Sent = hugepage.Make[time.Duration](n, n)
	}
	b.First, b.Last = hugepage.Make[time.Duration](n, n), hugepage.Make[time.Duration](n, n)
	b.Prompt, b.Completion = hugepage.Make[int32](n, n), hugepage.Make[int32](n, n)
	return b
}

// Window returns an empty block whose columns are those of b from row at,
// with room for n rows (and their ids, while these average idRoom bytes at
// most). b's rows there must not have been written.
func (b *Block) Window(at, n int) *Block {
	end := at + n
	w := &Block{
		idText:     b.idText[idRoom*at : idRoom*at : idRoom*end],
		idEnd:      b.idEnd[at:end:end],
		Status:     b.Status[at:end:end],
		First:      b.First[at:end:end],
		Last:       b.Last[at:end:end],
		Prompt:     b.Prompt[at:end:end],
		Completion: b.Completion[at:end:end],
		rare:       make([]uint64, (n+63)/64),
		sends:      b.sends,
	}
	if b.sends {
		w.Sent = b.Sent[at:end:end]
	}
	return w
}

// room makes the columns n rows long, keeping the rows they hold.
func (b *Block) room(n int) {
	b.idEnd = lengthen(b.idEnd, n)
	b.Status = lengthen(b.Status, n)
	if b.sends {
		b.Sent = lengthen(b.Sent, n)
	}
	b.First, b.Last = lengthen(b.First, n), lengthen(b.Last, n)
	b.Prompt, b.Completion = lengthen(b.Prompt, n), lengthen(b.Completion, n)
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

// Len returns the number of rows in the block.
func (b *Block) Len() int { return b.n }

// SentOf returns the send times of the rows [k, k+n), or nil for a block
// made without send times (see NewBlock), whose Sent is empty: each of its
// rows was sent at 0.
func (b *Block) SentOf(k, n int) []time.Duration {
	if !b.sends {
		return nil
	}
	return b.Sent[k : k+n]
}

// fits reports whether the block can take a row with the given id.
func (b *Block) fits(id string) bool {
	return uint64(len(b.idText))+uint64(len(id)) <= maxBlockIDs
}

// Add adds a row to b, on line line: its id, message, status, times and
// counts. Each column is written at the row's index, into the room
// NewBlock made, rather than appended to. A block without send times
// (see SentOf) keeps no sent, which is then 0.
func Add[S string | []byte](b *Block, id, message S, status uint8, sent, first, last time.Duration, prompt, completion int, line int) {
	k := b.n
	if k == len(b.Status) {
		b.room(max(64, 2*k))
	}
	if k == 0 || line != b.lastLine+1 {
		b.lines = append(b.lines, lineJump{k, line})
	}
	b.lastLine = line
	b.idText = append(b.idText, id...)
	b.idEnd[k] = uint32(len(b.idText))
	b.Status[k] = status
	if b.sends {
		b.Sent[k] = sent
	}
	b.First[k], b.Last[k] = first, last
	p, c := int32(prompt), int32(completion)
	if len(message) > 0 || int(p) != prompt || int(c) != completion {
		b.rare[k/64] |= 1 << (k % 64)
		b.rareParts = append(b.rareParts, rareRow{k, string(message), prompt, completion})
		p, c = 0, 0
	}
	b.Prompt[k], b.Completion[k] = p, c
	b.n++
}

// finish cuts the columns to the rows added and makes the block's ids one
// string, without a copy: the bytes are never written again.
func (b *Block) finish() {
	n := b.n
	b.idEnd, b.Status = b.idEnd[:n], b.Status[:n]
	if b.sends {
		b.Sent = b.Sent[:n]
	}
	b.First, b.Last = b.First[:n], b.Last[:n]
	b.Prompt, b.Completion, b.rare = b.Prompt[:n], b.Completion[:n], b.rare[:(n+63)/64]
	b.ids, b.idText = unsafe.String(unsafe.SliceData(b.idText), len(b.idText)), nil
}

// ID returns row k's id.
func (b *Block) ID(k int) string {
	start := uint32(0)
	if k > 0 {
		start = b.idEnd[k-1]
	}
	return b.ids[start:b.idEnd[k]]
}

// Rare reports whether row k has a message or a count beyond int32: then
// its Prompt and Completion are 0, and RareParts holds them.
func (b *Block) Rare(k int) bool { return b.rare[k/64]>>(k%64)&1 != 0 }

// RareParts returns the counts and message of a rare row k.
func (b *Block) RareParts(k int) (prompt, completion int, message string) {
	x := b.rareParts[sort.Search(len(b.rareParts), func(j int) bool { return b.rareParts[j].row >= k })]
	return x.prompt, x.completion, x.message
}

// Line returns the line row k is on.
func (b *Block) Line(k int) int {
	j := sort.Search(len(b.lines), func(j int) bool { return b.lines[j].row > k }) - 1
	return b.lines[j].line + k - b.lines[j].row
}

// Add appends a block of rows to the table, finishing it.
func (t *Table) Add(b *Block) {
	t.Flush()
	t.push(b)
}

// Tail returns the block that rows added one at a time go to, with room
// for a row with the given id.
func (t *Table) Tail(id string) *Block {
	if t.tail != nil && !t.tail.fits(id) {
		t.Flush()
	}
	if t.tail == nil {
		t.tail = NewBlock(0, !t.NoSends)
	}
	return t.tail
}

// Flush makes the rows added one at a time a block. t may be nil.
func (t *Table) Flush() {
	if t != nil && t.tail != nil {
		t.push(t.tail)
		t.tail = nil
	}
}

// push appends a block, finishing it.
func (t *Table) push(b *Block) {
	if b.Len() == 0 {
		return
	}
	b.finish()
	t.Blocks = append(t.Blocks, b)
	t.first = append(t.first, t.n)
	t.n += b.Len()
}

// Len returns the number of rows.
func (t *Table) Len() int { return t.n }

// Find returns the index of the block that holds row i, and i's row in it.
func (t *Table) Find(i int) (j, k int) {
	j = sort.Search(len(t.first), func(j int) bool { return t.first[j] > i }) - 1
	return j, i - t.first[j]
}

// block returns the block that holds row i, and i's row in it.
func (t *Table) block(i int) (*Block, int) {
	j, k := t.Find(i)
	return t.Blocks[j], k
}

// ID returns row i's id.
func (t *Table) ID(i int) string {
	b, k := t.block(i)
	return b.ID(k)
}

// Line returns the line row i is on.
func (t *Table) Line(i int) int {
	b, k := t.block(i)
	return b.Line(k)
}

// EachBut calls f with the index of each row whose status is not status,
// in order, reading the status column alone.
func (t *Table) EachBut(status uint8, f func(i int)) {
	base := 0
	for _, b := range t.Blocks {
		for k, st := range b.Status[:b.Len()] {
			if st != status {
				f(base + k)
			}
		}
		base += b.Len()
	}
}

// IDs returns a function giving row i's id, for rows asked for in order
// (i never falling from one call to the next): each block is found once,
// where ID searches for it every time.
func (t *Table) IDs() func(i int) string {
	j, first := -1, 0 // the block of the last row asked for, and its first row
	return func(i int) string {
		if j < 0 {
			var k int
			j, k = t.Find(i)
			first = i - k
		}
		for i-first >= t.Blocks[j].Len() {
			first += t.Blocks[j].Len()
			j++
		}
		return t.Blocks[j].ID(i - first)
	}
}
