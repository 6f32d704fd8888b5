package llmmetrics

import (
	"errors"
	"io"

	"github.com/llmmetrics/llmmetrics/internal/blocks"
	"github.com/llmmetrics/llmmetrics/internal/hugepage"
	"github.com/llmmetrics/llmmetrics/internal/table"
)

// A block is a block of lines (blocks.Block) and where its records go.
type block struct {
	blocks.Block

	// recs and lines, when not nil, are where the block's records and
	// their line numbers go: empty windows, with room for one a line, of
	// the slices the reader fills (see rows).
	recs  []Record
	lines []int
	at    int // the slot of recs[0] in the reader's rows; -1 when recs is nil

	// tab, when not nil, is where the block's rows go instead, for a
	// reader that keeps a table: an empty block whose columns are a
	// window of the reader's.
	tab *table.Block
}

// slots returns where the block's records and their line numbers go: the
// windows the reader gave it, or new slices with room for n.
func (b *block) slots(n int) ([]Record, []int) {
	if b.recs != nil {
		return b.recs, b.lines
	}
	return hugepage.Make[Record](0, n), hugepage.Make[int](0, n)
}

// rows are where a reader's records go when it knows the number of lines
// of its input beforehand: one slot a line (see blocks.Slots). A reader
// that keeps a table (internal/table) has room in its rows' columns
// instead, in tab, and takes no slots: a table's blocks keep their own
// rows, and the slots of blank and rejected lines stay empty.
type rows struct {
	*blocks.Slots[Record]
	first int          // the line of tab's row 0
	tab   *table.Block // the columns of a table's rows, when Slots is nil
}

// newRows returns slots for the given number of lines from line first, or
// nil when the number is not known.
func newRows(first, lines int) *rows {
	if lines <= 0 {
		return nil
	}
	return &rows{Slots: blocks.NewSlots[Record](first, lines)}
}

// newTableRows returns room in columns for the rows of the given number
// of lines from line first, with send times when sends is set, or nil when
// the number is not known.
func newTableRows(first, lines int, sends bool) *rows {
	if lines <= 0 {
		return nil
	}
	return &rows{first: first, tab: table.NewRoom(lines, sends)}
}

// window gives a block the slots of its lines, when they are all within
// the slices (the file may have grown since its lines were counted).
func (d *rows) window(b *block) {
	b.at = -1
	switch {
	case d == nil:
	case d.tab != nil:
		if at, n := b.FirstLine-d.first, b.Lines(); at >= 0 && at+n <= len(d.tab.Status) && n > 0 {
			b.tab = d.tab.Window(at, n)
		}
	default:
		b.recs, b.lines, b.at = d.Window(b.FirstLine, b.Lines())
	}
}

// lineItem is a line of a block that is not a record: a row set aside, or
// a run header.
type lineItem struct {
	line   int
	err    *RecordError // the line's error, when it was not read
	header []byte       // a header line, to be read in order
	cut    *Cut         // the input's unfinished last line
}

// parsedBlock is a block's lines, parsed.
type parsedBlock struct {
	recs     []Record
	lines    []int        // the line of each record
	tab      *table.Block // the records instead, for a reader that keeps a table
	at       int          // the slot of recs in the reader's rows, -1 for none (see block)
	items    []lineItem   // the lines that are not records, in order
	unsent   []int        // the lines of the records without a send time (JSONL)
	lastLine int          // the number of the line after the block's last
	err      error        // the block's read error
	rest     io.Reader    // the input after the block, to be read another way
}

// parseBlocks parses the blocks of r, from line first and up to a fence
// (see blocks.Split), on every core (see blocks.Parse), parse turning one
// block into its records (in dst's slots, when it is not nil) and items,
// and returns the results in input order, one at a time, through next;
// stop ends the reading early.
func parseBlocks(r io.Reader, first int, fence func([]byte) int, dst *rows, parse func(block) parsedBlock) (next func() (parsedBlock, bool), stop func()) {
	return blocks.Parse(r, first, fence, maxLine, func(raw blocks.Block) parsedBlock {
		b := block{Block: raw}
		b.Lines() // counted once, for the window and the parser
		dst.window(&b)
		pb := parse(b)
		pb.rest, pb.at = b.Rest, b.at
		return pb
	})
}

// gatherEnd is how gathering the blocks ended: with a read error on a
// line, or at a fence with the rest of the input, from a line, to be read
// another way; or neither, at the end of the input.
type gatherEnd struct {
	err  error
	rest io.Reader
	line int

	unsent []int // the lines of the records without a send time (JSONL)
	sent   int   // the number of records with one
}

// gather takes the parsed blocks in input order into run: the records
// with their line numbers (in dst, when it is not nil), the rows set aside
// (in strict mode the first is the error that ends reading), and header
// lines, given to header.
func (o ReadOptions) gather(next func() (parsedBlock, bool), dst *rows, run *Run, header func(t []byte, line int) error) (gatherEnd, error) {
	// Without slots, the blocks' records are joined once at the end.
	var parts [][]Record
	var lines [][]int
	var end gatherEnd
	n := 0
	for {
		pb, ok := next()
		if !ok {
			break
		}
		for _, it := range pb.items {
			switch {
			case it.header != nil:
				if err := header(it.header, it.line); err != nil {
					return end, err
				}
			case it.cut != nil:
				run.Cut = it.cut
			default:
				if err := o.reject(run, it.err); err != nil {
					return end, err
				}
			}
		}
		end.unsent, end.sent = append(end.unsent, pb.unsent...), end.sent+len(pb.recs)-len(pb.unsent)
		switch {
		case pb.tab != nil:
			run.tab.Add(pb.tab)
		case dst != nil:
			dst.Take(pb.recs, pb.lines, pb.at)
		default:
			parts, lines = append(parts, pb.recs), append(lines, pb.lines)
			n += len(pb.recs)
		}
		if pb.err != nil || pb.rest != nil {
			end.err, end.rest, end.line = pb.err, pb.rest, pb.lastLine
			var long *blocks.LongLine
			if errors.As(pb.err, &long) {
				end.line = long.Line
			}
			break
		}
	}
	switch {
	case run.tab != nil:
		return end, nil
	case dst != nil:
		run.Records, run.Lines = dst.Done()
		return end, nil
	}
	run.Records, run.Lines = blocks.Join(parts, lines, n)
	return end, nil
}
