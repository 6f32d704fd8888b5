package bounded

import (
	"fmt"
	"hash/maphash"
	"math"
	"slices"

	"github.com/llmmetrics/llmmetrics"
)

// An idCheck finds a repeated id in bounded memory: it hashes the ids
// (empty ones aside, as Summarize leaves them) into a sorted list of at
// most max hashes, where an equal pair is a candidate. When the first
// pass finds more ids than max, it drops the list, and later passes each
// hash one part of them, by hash modulo parts. A last pass, only when
// there are candidates, compares the ids of the candidates' records to
// tell a repeated id from two ids of one hash.
type idCheck struct {
	seed        maphash.Seed
	max         int      // the most hashes held
	parts, part int      // the part hashed in this pass
	hashes      []uint64 // this pass's hashes; nil once over max in the first
	over        bool     // the first pass found more than max
	ids         int      // the ids seen by the first pass
	candidates  map[uint64]bool
	// repeated, when not nil, is handed each record that repeats the id
	// of an earlier one, first, in the last pass, instead of stopping it
	// with an error.
	repeated func(b *batch, i int, first place) error
}

// newIDCheck returns a check that holds at most budget bytes of hashes.
func newIDCheck(budget int) *idCheck {
	return &idCheck{seed: maphash.MakeSeed(), max: max(budget/8, 1), parts: 1}
}

// add hashes id, in the pass's part.
func (c *idCheck) add(id string) {
	if id == "" || c.over {
		return
	}
	h := maphash.String(c.seed, id)
	if c.parts > 1 && h%uint64(c.parts) != uint64(c.part) {
		return
	}
	if len(c.hashes) == c.max {
		c.over, c.hashes = true, nil
		return
	}
	c.hashes = append(c.hashes, h)
}

// first ends the first pass: it notes how many ids it saw (seen) and
// finds the candidates when every hash fit.
func (c *idCheck) first(seen int) {
	c.ids = seen
	if !c.over {
		c.collect()
		return
	}
	// Each part holds seen/parts hashes on average, with a standard
	// deviation below √max: it is filled to at most 7/8 of max less six
	// deviations.
	target := max(c.max-c.max/8-6*int(math.Sqrt(float64(c.max))), 1)
	c.parts = (seen + target - 1) / target
}

// collect finds the candidates among the pass's hashes, then empties
// them.
func (c *idCheck) collect() {
	slices.Sort(c.hashes)
	for i := 1; i < len(c.hashes); i++ {
		if c.hashes[i] == c.hashes[i-1] {
			if c.candidates == nil {
				c.candidates = map[uint64]bool{}
			}
			c.candidates[c.hashes[i]] = true
		}
	}
	c.hashes = c.hashes[:0]
}

// held returns the bytes the check holds at most.
func (c *idCheck) held() int { return 8 * min(c.max, max(c.ids, len(c.hashes))) }

// check reads the file for the parts the first pass could not hash, then
// compares the candidates' ids; it returns the first repeated id as an
// error.
func (c *idCheck) check(each passFunc, passes *int) error {
	for c.part = 0; c.over && c.part < c.parts; c.part++ {
		c.over = false
		*passes++
		err := each(func(b *batch) error {
			for i := range b.run.Records {
				c.add(b.run.Records[i].ID)
			}
			return nil
		})
		if err == nil && c.over {
			err = fmt.Errorf("bounded: the ids of part %d of %d do not fit %d hashes", c.part+1, c.parts, c.max)
		}
		if err != nil {
			return err
		}
		c.collect()
		c.over = true
	}
	if len(c.candidates) == 0 {
		return nil
	}
	*passes++
	return c.compare(each)
}

// compare reads the file for the ids of the candidates' records and
// hands each that repeats an earlier one to repeated, with the place of
// the first; by default (nil) the first is returned as an error.
func (c *idCheck) compare(each passFunc) error {
	repeated := c.repeated
	if repeated == nil {
		repeated = duplicateError
	}
	seen := map[string]place{} // each id's first record
	return each(func(b *batch) error {
		for i := range b.run.Records {
			r := &b.run.Records[i]
			if r.ID == "" || !c.candidates[maphash.String(c.seed, r.ID)] {
				continue
			}
			first, ok := seen[r.ID]
			if !ok {
				seen[r.ID] = place{b.indexOf(i), b.lineOf(i)}
				continue
			}
			if err := repeated(b, i, first); err != nil {
				return err
			}
		}
		return nil
	})
}

// duplicateError returns the error of record i of a batch, which repeats
// the id of first.
func duplicateError(b *batch, i int, first place) error {
	return &llmmetrics.RecordError{Index: b.indexOf(i), Line: b.lineOf(i), ID: b.run.Records[i].ID, Field: "id",
		Err: fmt.Errorf("%w: also line %d", llmmetrics.ErrDuplicateID, first.line)}
}
