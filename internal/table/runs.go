package table

import "time"

// Runs are runs of a table's rows, none of them across two blocks, kept in
// 12 bytes a run: a column read in place through them (Seg) needs no copy
// of its values, where a segment of its own takes 24 bytes a run. They
// hold a column's ok rows when some of those are left out too, which
// makes runs too short for segments (see OKColumns).
type Runs struct {
	t    *Table
	runs []uint32 // a run's block, its first row and the row past its last
}

// StreamedRuns returns the runs of the rows whose category in cat is
// zero (ok) and that are not unstreamed (see Unstreamed), in input order,
// and the number of rows they hold. It returns false, with no runs, when
// their runs would take more memory than a copy of the rows' values, 8
// bytes each. The runs are counted first, so that their list is made
// once, at its size.
func StreamedRuns[C ~uint8](t *Table, cat []C) (Runs, int, bool) {
	var c runCounter
	for j, b := range t.Blocks {
		streamedRuns(&c, b, cat[t.first[j]:t.first[j]+b.n], uint32(j))
	}
	if 12*c.n >= 8*c.rows {
		return Runs{}, 0, false
	}
	c.runs = make([]uint32, 0, 3*c.n)
	for j, b := range t.Blocks {
		streamedRuns(&c, b, cat[t.first[j]:t.first[j]+b.n], uint32(j))
	}
	return Runs{t: t, runs: c.runs}, c.rows, true
}

// A runCounter counts runs and their rows, and lists them once runs is
// not nil.
type runCounter struct {
	n, rows int
	runs    []uint32
}

// streamedRuns counts the runs of block j, b, whose rows' categories are
// cat, and lists them when c lists: its rows read as Unstreamed reads
// them, but a row's message and counts (Rare) only for an ok row of no
// count in its column, the one place a rare row's count can hide.
func streamedRuns[C ~uint8](c *runCounter, b *Block, cat []C, j uint32) {
	completion, first, last := b.Completion[:len(cat)], b.First[:len(cat)], b.Last[:len(cat)]
	list := c.runs != nil
	lo, in := 0, false
	for k, cc := range cat {
		n := completion[k]
		kept := cc == 0 && (n < 2 || first[k] != last[k])
		if kept && n == 0 && b.Rare(k) {
			kept = !Unstreamed(b, k)
		}
		if kept == in {
			continue
		}
		if kept {
			lo = k
		} else {
			c.end(j, lo, k, list)
		}
		in = kept
	}
	if in {
		c.end(j, lo, len(cat), list)
	}
}

// end counts the run of rows [lo, hi) of block j, and lists it.
func (c *runCounter) end(j uint32, lo, hi int, list bool) {
	if list {
		c.runs = append(c.runs, j, uint32(lo), uint32(hi))
		return
	}
	c.n, c.rows = c.n+1, c.rows+hi-lo
}

// Len returns the number of runs.
func (r Runs) Len() int { return len(r.runs) / 3 }

// Seg returns a function giving run i's values of col, in place.
func (r Runs) Seg(col Column) func(i int) []time.Duration {
	cols := make([][]time.Duration, len(r.t.Blocks))
	for j, b := range r.t.Blocks {
		cols[j] = col(b)
	}
	return func(i int) []time.Duration {
		run := r.runs[3*i : 3*i+3 : 3*i+3]
		return cols[run[0]][run[1]:run[2]:run[2]]
	}
}

// Unstreamed reports whether row k of b is an answer whose text came at
// once, as the root package's Record.unstreamed reads a decoded row (no
// chunk arrivals, a count that is not negative): two or more tokens, its
// first and last text at the same time.
func Unstreamed(b *Block, k int) bool {
	n := int(b.Completion[k])
	if b.Rare(k) {
		_, n, _ = b.RareParts(k)
	}
	return n >= 2 && b.First[k] == b.Last[k]
}
