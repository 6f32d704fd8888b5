package blocks

import (
	"slices"
	"sync/atomic"

	"github.com/llmmetrics/llmmetrics/internal/hugepage"
)

// Slots are where a reader's items go, one slot for each line of its
// input, when it knows the number of lines beforehand (a regular file):
// each block's items are then written in place by the worker that parses
// it, rather than copied when the blocks are joined. Slots of blank and
// rejected lines are closed up as the blocks are taken.
type Slots[T any] struct {
	first int // the line of slot 0
	items []T
	lines []int
	fill  int // slots taken: the items so far
}

// NewSlots returns slots for the given number of lines from line first, or
// nil when the number is not known.
func NewSlots[T any](first, lines int) *Slots[T] {
	if lines <= 0 {
		return nil
	}
	return &Slots[T]{first: first, items: hugepage.Make[T](lines, lines), lines: hugepage.Make[int](lines, lines)}
}

// Window returns the slots of the n lines from line first, for a block's
// items and their line numbers: empty windows, with room for one a line,
// and the slot of the first. It returns nil windows and −1 when the lines
// are not all within the slots (the file may have grown since its lines
// were counted), or d is nil.
func (d *Slots[T]) Window(first, n int) ([]T, []int, int) {
	if d == nil {
		return nil, nil, -1
	}
	at := first - d.first
	if at < 0 || at+n > len(d.items) || n == 0 {
		return nil, nil, -1
	}
	return d.items[at : at : at+n], d.lines[at : at : at+n], at
}

// Take adds a parsed block's items after those taken before, moving them
// down over the slots of blank and rejected lines when they are not there
// already. at is the slot of the block's window, −1 when it had none.
func (d *Slots[T]) Take(items []T, lines []int, at int) {
	if len(items) == 0 {
		return
	}
	inWindow := at >= 0 && at < len(d.items) && &items[0] == &d.items[at]
	if inWindow && at == d.fill {
		d.fill += len(items)
		return
	}
	if d.fill+len(items) > len(d.items) {
		d.items = slices.Grow(d.items[:d.fill], len(items))[:d.fill+len(items)]
		d.lines = slices.Grow(d.lines[:d.fill], len(items))[:d.fill+len(items)]
	}
	copy(d.items[d.fill:], items)
	copy(d.lines[d.fill:], lines)
	d.fill += len(items)
	if inWindow {
		// What was moved down is cleared where it was not overwritten, so
		// that no item is held twice.
		clear(d.items[max(at, d.fill) : at+len(items)])
	}
}

// Done returns the items and their lines. The slots left over stay in
// their capacity, so that items read after a fence (see Split) are
// appended in place.
func (d *Slots[T]) Done() ([]T, []int) {
	return d.items[:d.fill], d.lines[:d.fill]
}

// Join joins the items of blocks taken without slots, and their lines, n
// in all, once at the end: appending block by block would copy the items
// over and over as the slice grows. It clears parts as it goes.
func Join[T any](parts [][]T, lines [][]int, n int) ([]T, []int) {
	items, at := hugepage.Make[T](0, n), hugepage.Make[int](0, n)
	for i := range parts {
		items = append(items, parts[i]...)
		at = append(at, lines[i]...)
		parts[i] = nil
	}
	return items, at
}

// Remove removes from items, and from lines (the line of each item, in
// ascending order), the items on the listed lines (ascending, each one of
// lines), or with others the items on every other line, in place,
// handing each to gone first; it stops at gone's first error, and returns
// it with the items and lines as they are then.
func Remove[T any](items []T, lines, listed []int, others bool, gone func(item *T, line int) error) ([]T, []int, error) {
	keep := 0
	for i, line := range lines {
		on := len(listed) > 0 && listed[0] == line
		if on {
			listed = listed[1:]
		}
		if on == others {
			items[keep], lines[keep] = items[i], line
			keep++
			continue
		}
		if err := gone(&items[i], line); err != nil {
			return items, lines, err
		}
	}
	clear(items[keep:])
	return items[:keep:keep], lines[:keep:keep], nil
}

// A Room is memory for the items of every block of a file, made at once
// in huge pages when their number is known, from which each block takes
// the arena its items go into, in whatever order the blocks are parsed. A
// block's own arena (as a reader of a stream makes) would be far less than
// a huge page: its memory would be asked of the system 4 KiB at a time,
// and the first touch of 200 MB of a large file's chunk arrivals took a
// sixth of its reading so.
type Room[T any] struct {
	buf  []T
	used atomic.Int64
}

// NewRoom returns room for n items.
func NewRoom[T any](n int) *Room[T] {
	return &Room[T]{buf: hugepage.Make[T](n, n)}
}

// Take returns an empty arena with room for n items: from the room while
// it lasts, or else of its own. r may be nil.
func (r *Room[T]) Take(n int) []T {
	if r != nil {
		if end := r.used.Add(int64(n)); end <= int64(len(r.buf)) {
			return r.buf[end-int64(n) : end-int64(n) : end]
		}
	}
	return hugepage.Make[T](0, n)
}
