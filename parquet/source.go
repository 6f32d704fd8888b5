package parquet

import (
	"fmt"
	"io"
	"time"

	"github.com/llmmetrics/llmmetrics"
	"github.com/parquet-go/parquet-go"
)

// A batch of a Source holds at most batchArrivals chunk arrivals (8 MiB
// of them, with the rows they came in) or sourceRows rows, whichever
// comes first; rows are read readRows at a time.
const (
	batchArrivals = 1 << 20
	sourceRows    = 4096
	readRows      = 256
)

// A Source reads a Parquet file of records once a pass, a batch of rows
// at a time, row group by row group, as bounded.SummarizeSources reads a
// run too large for memory: it holds one batch of records and the pages
// of the row group being read, never all the rows. Its Header and Pass
// make it a bounded.Source.
type Source struct {
	file *parquet.File
}

// NewSource opens a Parquet file of size bytes for reading in passes: it
// checks the file and its schema, as Read does, and reads no row. r must
// stay open while the Source is read.
func NewSource(r io.ReaderAt, size int64) (s *Source, err error) {
	defer recovered(&err)
	f, err := openFile(r, size)
	if err != nil {
		return nil, err
	}
	if err := readMetadata(f, &llmmetrics.Run{}); err != nil {
		return nil, err
	}
	return &Source{file: f}, nil
}

// recovered turns the library's panic on a damaged file into an error
// wrapping ErrCorrupt: an error, never a panic, for anything from data.
func recovered(err *error) {
	if p := recover(); p != nil {
		*err = fmt.Errorf("%w: %v", ErrCorrupt, p)
	}
}

// Header returns the run header of the file's metadata, as its writer
// wrote it (without the end line's load facts, which Read adds); nil
// when the file has none.
func (s *Source) Header() (*llmmetrics.RunHeader, error) {
	var run llmmetrics.Run
	err := readMetadata(s.file, &run)
	return run.Header, err
}

// Pass reads the file's rows from the first and hands fn each batch of
// their records, in order: the first batch with the header (as its
// writer wrote it), the window and NoSendTimes, the last with the end
// line and the cut (Cut.After counted from the batch's first record).
// An invalid row is a *llmmetrics.RecordError naming its row and column,
// as Read gives it; fn's error stops the pass and is returned.
func (s *Source) Pass(fn func(batch *llmmetrics.Run) error) (err error) {
	defer recovered(&err)
	var meta llmmetrics.Run
	if err := readMetadata(s.file, &meta); err != nil {
		return err
	}
	rows := parquet.NewGenericReader[row](s.file)
	defer rows.Close()
	p := &sourcePass{rows: rows, buf: make([]row, readRows)}
	for more := true; more; {
		b := &llmmetrics.Run{}
		if p.index == 0 {
			b.Header, b.Window, b.NoSendTimes = meta.Header, meta.Window, meta.NoSendTimes
		}
		first := p.index
		if more, err = p.fill(b); err != nil {
			return err
		}
		if !more {
			b.End, b.Cut = meta.End, cutFrom(meta.Cut, first)
		}
		if err := fn(b); err != nil {
			return err
		}
	}
	return nil
}

// cutFrom returns a cut with After counted from record first.
func cutFrom(c *llmmetrics.Cut, first int) *llmmetrics.Cut {
	if c == nil {
		return nil
	}
	cut := *c
	cut.After -= first
	return &cut
}

// A sourcePass is one pass of a Source over the rows.
type sourcePass struct {
	rows  *parquet.GenericReader[row]
	buf   []row
	arena []time.Duration // the chunk arrivals of buf's records
	index int             // the rows read
	next  int             // rows of buf[:n] read but not yet taken into a batch
	n     int
}

// fill adds records to b until it holds batchArrivals chunk arrivals or
// sourceRows records, and says whether rows are left.
func (p *sourcePass) fill(b *llmmetrics.Run) (bool, error) {
	for held := 0; len(b.Records) < sourceRows && held < batchArrivals; {
		if p.next == p.n {
			more, err := p.read()
			if err != nil || !more {
				return false, err
			}
			p.arena = make([]time.Duration, 0, arrivals(p.buf[:p.n]))
		}
		x := &p.buf[p.next]
		rec, rerr := valid(x, p.index, &p.arena)
		if rerr != nil {
			return false, rerr
		}
		b.Records = append(b.Records, rec)
		held += len(rec.Chunks)
		p.next++
		p.index++
	}
	return true, nil
}

// read reads the next rows into buf, and says whether it read any.
func (p *sourcePass) read() (bool, error) {
	clear(p.buf)
	n, err := p.rows.Read(p.buf)
	p.n, p.next = n, 0
	switch {
	case err != nil && err != io.EOF:
		return false, fmt.Errorf("%w: row %d: %v", ErrCorrupt, p.index, err)
	case n == 0 && err == io.EOF:
		return false, nil
	}
	return true, nil
}
