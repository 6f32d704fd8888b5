package llmmetrics

import (
	"fmt"
	"hash/maphash"
	"math/bits"
	"runtime"
	"slices"
	"time"
	"unsafe"

	"github.com/llmmetrics/llmmetrics/internal/hugepage"
)

// classify validates every record and assigns its category. It returns the
// errors of the invalid ones, in input order (the first MaxReasons of them
// listed, the rest counted); a record whose id repeats an earlier one is
// invalid (the first is kept).
func classify(recs []Record, lines []int) ([]Category, *Run) {
	c := classifyPooling(&source{recs: recs, lines: lines}, false)
	return c.cat, c.bad
}

// pooledGaps are the gaps between the chunks of the ok records that have
// two or more, pooled: their moments (with the sum of squares) and each
// record's largest gap, most[i] for record i. They are taken while the
// records are validated, when each record's chunks have just been read.
type pooledGaps struct {
	mo   moments
	most []time.Duration
}

// gapsPooled says whether a record of category c adds its gaps to the
// pool: an ok record with two chunk arrivals or more.
// It takes the record's chunk arrivals, so that a pass that has only its
// index (src.chunks) asks the same question.
func gapsPooled(c Category, chunks []time.Duration) bool {
	return c == CategoryOK && hasChunkGaps(chunks)
}

// classes are what classifyPooling finds of a run's records.
type classes struct {
	cat   []Category
	bad   *Run
	pg    *pooledGaps     // the pooled gaps, when asked for
	spare []time.Duration // room for a duration for each record, no longer needed (see idKeys.spare)
	// each holds the tally of each run of records (see inParts), taken
	// as they were validated; nil when a repeated id changed a category
	// after that, so that the runs must be tallied again (see tallyAll).
	each []tally
}

// classifyPooling is classify, and with pool also pools the gaps; it
// tallies the records as it validates them.
func classifyPooling(src *source, pool bool) classes {
	n := src.len()
	cat := hugepage.Make[Category](n, n)
	var pg *pooledGaps
	if pool {
		pg = &pooledGaps{mo: moments{squared: true}}
		if src.tab == nil { // a table's rows have no chunk arrivals: none is pooled
			pg.most = hugepage.Make[time.Duration](n, n)
		}
	}
	ids := newIDKeys(n)
	invalid, each := validateAll(src, cat, pg, ids)
	dups := duplicateIDs(src, ids)
	if len(dups) > 0 {
		each = nil
	}
	bad := &Run{}
	// reject sets a record aside; its error is made only while reasons are
	// still listed (see Run.Reject).
	reject := func(e func() *RecordError) {
		if len(bad.Rejected) < MaxReasons {
			bad.Reject(e())
		} else {
			bad.Unlisted++
		}
	}
	pooledDup := false
	// The two lists are in input order; they are merged.
	for len(invalid) > 0 || len(dups) > 0 {
		if len(dups) == 0 || len(invalid) > 0 && invalid[0].at < dups[0].at {
			i, e := invalid[0].at, invalid[0].err
			reject(func() *RecordError { return src.recordError(i, e.Field, e.Err) })
			invalid = invalid[1:]
			continue
		}
		i, j := dups[0].at, dups[0].first
		reject(func() *RecordError {
			return src.recordError(i, "id", fmt.Errorf("%w: also %s", ErrDuplicateID, src.where(j)))
		})
		pooledDup = pooledDup || gapsPooled(cat[i], src.chunks(i))
		cat[i] = CategoryRejected
		dups = dups[1:]
	}
	if pg != nil && pooledDup {
		// A repeated record's gaps were pooled: pool them again without it.
		pg.mo = moments{squared: true}
		poolAll(src, cat, pg)
	}
	return classes{cat: cat, bad: bad, pg: pg, spare: ids.spare(), each: each}
}

// invalidRecord is a record that failed validation, and why: err is nil
// beyond the first MaxReasons invalid records of a run of them, which are
// beyond the first MaxReasons of the whole and only counted, so that the
// reasons kept stay bounded however many records are invalid.
type invalidRecord struct {
	at  int
	err *RecordError
}

// validateAll sets the category of each record, CategoryRejected for an
// invalid one, and returns the invalid ones in input order and the tally
// of each run of records; it hashes the ids of the valid records into ids,
// and with pg it also pools the gaps of the ok records. The records are
// split among the cores, in the runs tallyAll would make.
func validateAll(src *source, cat []Category, pg *pooledGaps, ids *idKeys) ([]invalidRecord, []tally) {
	parts := inParts(src.len())
	each := make([]tally, len(parts))
	found := make([][]invalidRecord, len(parts))
	gaps := partMoments(len(parts))
	eachPart(parts, func(p, lo, hi int) {
		// The tally is kept apart from the other cores' until the end,
		// rather than written where they write theirs: neighbours in one
		// cache line, each core's writes would take the line from the
		// other's.
		var t tally
		defer func() { each[p] = t }()
		for base, w := range src.windows(lo, hi, withIDs) {
			for k := range w {
				i, r := base+k, &w[k]
				// The gaps of a record that may be pooled are taken before
				// it is validated, while its chunks are read for the first
				// time: when none is negative, validation need not read
				// them again. They are pooled once it is valid.
				var g recordGaps
				mayPool := pg != nil && r.Status == StatusOK && hasChunkGaps(r.Chunks)
				if mayPool {
					g = gapsOf(r.Chunks)
				}
				if e := r.validateOrdered(mayPool && g.lo >= 0); e != nil {
					if len(found[p]) >= MaxReasons {
						e = nil
					}
					found[p] = append(found[p], invalidRecord{i, e})
					cat[i] = CategoryRejected
					ids.keys[i] = noKey
					continue
				}
				cat[i] = r.Category()
				t.one(r, cat[i])
				ids.add(i, r.ID)
				if mayPool && gapsPooled(cat[i], r.Chunks) {
					pg.add(&gaps[p], i, r, &g)
				}
			}
		}
	})
	var all []invalidRecord
	for _, f := range found {
		all = append(all, f...)
	}
	if pg != nil {
		pg.mergeAll(gaps)
	}
	return all, each
}

// recordGaps are what the pool takes from one record's gaps.
type recordGaps struct {
	lo, hi time.Duration
	sq     sum192 // their squares
}

// gapsOf takes the gaps between chunk arrivals, of which there are at
// least two.
func gapsOf(chunks []time.Duration) recordGaps {
	var g recordGaps
	g.lo, g.hi = gapStats(chunks, &g.sq)
	return g
}

// pool adds record i's gaps to mo.
func (pg *pooledGaps) pool(mo *moments, i int, r *Record) {
	g := gapsOf(r.Chunks)
	pg.add(mo, i, r, &g)
}

// add adds record i's gaps, g, to mo.
func (pg *pooledGaps) add(mo *moments, i int, r *Record, g *recordGaps) {
	mo.squares.addSum(g.sq)
	mo.addMany(len(r.Chunks)-1, g.lo, g.hi, decodeTime(r))
	pg.most[i] = g.hi
}

// poolAll pools the gaps of the ok records again, on every core.
func poolAll(src *source, cat []Category, pg *pooledGaps) {
	parts := inParts(src.len())
	gaps := partMoments(len(parts))
	eachPart(parts, func(p, lo, hi int) {
		for base, w := range src.windows(lo, hi, noIDs) {
			for k := range w {
				if i, r := base+k, &w[k]; gapsPooled(cat[i], r.Chunks) {
					pg.pool(&gaps[p], i, r)
				}
			}
		}
	})
	pg.mergeAll(gaps)
}

// partMoments returns empty pooled moments (with their squares) for each
// of n runs of records, which pool apart on their cores.
func partMoments(n int) []moments {
	m := make([]moments, n)
	for p := range m {
		m[p].squared = true
	}
	return m
}

// mergeAll adds what the runs pooled to pg, in order.
func (pg *pooledGaps) mergeAll(parts []moments) {
	for p := range parts {
		pg.mo.merge(&parts[p])
	}
}

// inParts splits n items into one range [lo, hi) per core, none of them
// smaller than a few thousand items.
func inParts(n int) [][2]int {
	k := max(1, min(runtime.GOMAXPROCS(0), n/4096))
	parts := make([][2]int, k)
	for p := range parts {
		parts[p] = [2]int{n * p / k, n * (p + 1) / k}
	}
	return parts
}

// duplicate is a record whose id an earlier one has.
type duplicate struct{ at, first int }

// idKeys are the keys by which repeated ids are found (see duplicateIDs):
// keys[i] holds the hash of record i's id in its high bits and i in the
// low ones, or noKey when the record is invalid or has no id. They are
// taken on every core as the records are validated.
type idKeys struct {
	seed  maphash.Seed
	shift int
	keys  []uint64
}

// noKey marks a record without a key. No key is all ones: its index, below
// the number of records, leaves a zero in the low bits.
const noKey = ^uint64(0)

func newIDKeys(n int) *idKeys {
	return &idKeys{seed: maphash.MakeSeed(), shift: bits.Len(uint(n)), keys: hugepage.Make[uint64](n, n)}
}

// spare returns the keys' memory, free once duplicateIDs has run, as
// empty room for a duration for each record. Of all the memory Summarize
// takes, a word for each record is worth not taking twice: for 5,000,000
// rows it is 40 MB, which a fresh allocation would have the system clear
// again.
func (k *idKeys) spare() []time.Duration {
	return unsafe.Slice((*time.Duration)(unsafe.Pointer(unsafe.SliceData(k.keys))), cap(k.keys))[:0]
}

// add sets the key of record i, valid, with the given id.
func (k *idKeys) add(i int, id string) {
	if id == "" {
		k.keys[i] = noKey
		return
	}
	k.keys[i] = maphash.String(k.seed, id)<<k.shift | uint64(i)
}

// duplicateIDs finds the valid records whose id repeats that of an earlier
// valid record, in input order, each with the first record of its id.
//
// A map of millions of strings is slow to build, so each id is hashed and
// the hashes sorted: records with one id then sit together, and only
// records with equal hashes have their ids compared. Each key holds the
// hash in its high bits and the record's index in the low ones, so that
// the sort also keeps equal hashes in input order.
func duplicateIDs(src *source, ids *idKeys) []duplicate {
	shift := ids.shift
	keys := ids.keys
	sortInts(keys)
	// The records without a key sort last, as no key is all ones: they
	// are cut off rather than taken out before the sort, a pass fewer.
	end, _ := slices.BinarySearch(keys, noKey)
	keys = keys[:end]
	index := func(k uint64) int { return int(k & (1<<shift - 1)) }
	var dups []duplicate
	for lo := 0; lo < len(keys); {
		hi := lo + 1
		for hi < len(keys) && keys[hi]>>shift == keys[lo]>>shift {
			hi++
		}
		// Within a run of equal hashes, a record repeats the first earlier
		// one with the same id.
		for x := lo + 1; x < hi; x++ {
			i := index(keys[x])
			for y := lo; y < x; y++ {
				if j := index(keys[y]); src.id(j) == src.id(i) {
					dups = append(dups, duplicate{i, j})
					break
				}
			}
		}
		lo = hi
	}
	slices.SortFunc(dups, func(a, b duplicate) int { return a.at - b.at })
	return dups
}
