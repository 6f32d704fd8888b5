package parquet

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"strconv"
	"time"

	"github.com/llmmetrics/llmmetrics"
	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress/zstd"
)

// batchRows is how many rows Write hands the library at a time, and
// rowGroupRows how many a row group holds: 65,536 rows of 128 chunk
// arrivals are 64 MiB of one column before it is encoded.
//
// pageBytes is the size of a page before it is compressed: chunk
// arrivals split into byte streams compress better in longer pages. On
// gen_records.py's run of 200,000 requests of 128 chunks, Parquet is
// 2.97 times smaller than the JSONL with the library's 256 KiB pages,
// 3.08 with 1 MiB, 3.17 with 2 MiB and 3.22 with 4 MiB; 1 MiB is the
// least that makes it a third: it writes a quarter slower (zstd over
// longer pages), reads as fast, and holds 5 MB more read in passes
// (Source).
const (
	batchRows    = 4096
	rowGroupRows = 1 << 16
	pageBytes    = 1 << 20
)

// Write writes a run as one Parquet file (see the package documentation
// for the schema): its records as rows, with the derived columns, and its
// header, end line, cut, declared window and NoSendTimes in the file's
// key-value metadata. Read gives the run back: equal records, header and
// end line.
//
// Every record must be valid (llmmetrics.Record.Validate), so that a
// notebook can trust every row: an invalid one is a
// *llmmetrics.RecordError naming the record and its column, and what was
// written before it is not a whole file. A run held in a table
// (ReadOptions.Summarize's) has no Records to write.
func Write(w io.Writer, run *llmmetrics.Run) error {
	meta, err := metadata(run)
	if err != nil {
		return err
	}
	// Chunk arrivals are most of a file (96%): split into byte streams
	// (the high bytes of a time from its send are nearly constant) in
	// pages of pageBytes and zstd at its best, they take 3.1 times less
	// room than in JSONL, where delta encoding (DELTA_BINARY_PACKED) gives
	// 2.7 times, as the jump from one request's last arrival to the next
	// one's first widens a quarter of its blocks (docs/scale.md).
	opts := []parquet.WriterOption{
		parquet.Compression(&zstd.Codec{Level: zstd.SpeedBestCompression}),
		parquet.MaxRowsPerRowGroup(rowGroupRows),
		parquet.CreatedBy("llmmetrics", "", ""),
		parquet.PageBufferSize(pageBytes),
		parquet.DefaultEncodingFor(parquet.Int64, &parquet.ByteStreamSplit),
	}
	for _, kv := range meta {
		opts = append(opts, parquet.KeyValueMetadata(kv[0], kv[1]))
	}
	pw := parquet.NewGenericWriter[row](w, opts...)
	var b rowBatch
	if h := run.Header; h != nil && !h.Start.IsZero() && !run.NoSendTimes {
		b.start, b.hasStart = h.Start.UnixNano(), true
	}
	for start := 0; start < len(run.Records); start += batchRows {
		recs := run.Records[start:min(start+batchRows, len(run.Records))]
		b.reset(recs)
		for i := range recs {
			if err := recs[i].Validate(); err != nil {
				return atRow(start+i, err)
			}
			b.add(&recs[i])
		}
		if _, err := pw.Write(b.rows); err != nil {
			return err
		}
	}
	return pw.Close()
}

// metadata returns the file's key-value metadata for a run, in order.
func metadata(run *llmmetrics.Run) ([][2]string, error) {
	kv := [][2]string{{keySchema, schemaVersion}}
	add := func(key string, v any) error {
		b, err := json.Marshal(v)
		if err != nil {
			return fmt.Errorf("parquet: %s: %w", key, err)
		}
		kv = append(kv, [2]string{key, string(b)})
		return nil
	}
	if run.Header != nil {
		if err := add(keyRun, written(run.Header, run.End)); err != nil {
			return nil, err
		}
	}
	if run.End != nil {
		if err := add(keyEnd, run.End); err != nil {
			return nil, err
		}
	}
	if run.Cut != nil {
		if err := add(keyCut, run.Cut); err != nil {
			return nil, err
		}
	}
	if run.Window != 0 {
		kv = append(kv, [2]string{keyWindow, strconv.FormatInt(int64(run.Window), 10)})
	}
	if run.NoSendTimes {
		kv = append(kv, [2]string{keyNoSendTimes, "true"})
	}
	return kv, nil
}

// written returns a run header as its writer wrote it: a reader adds the
// end line's load facts to the header's Load (llmmetrics.RunEnd.Load),
// and they are the end line's to say. A fact the header held with the
// same value is taken for one the end line added.
func written(h *llmmetrics.RunHeader, e *llmmetrics.RunEnd) *llmmetrics.RunHeader {
	if e == nil || len(e.Load) == 0 || len(h.Load) == 0 {
		return h
	}
	c := *h
	c.Load = maps.Clone(h.Load)
	for k, v := range e.Load {
		if c.Load[k] == v {
			delete(c.Load, k)
		}
	}
	if len(c.Load) == 0 {
		c.Load = nil
	}
	return &c
}

// atRow returns a record's validation error with its position, its field
// named as the file's column.
func atRow(i int, err error) error {
	if re, ok := err.(*llmmetrics.RecordError); ok {
		c := *re
		c.Index, c.Field = i, columnOf(re.Field)
		return &c
	}
	return err
}

// A rowBatch turns records into rows, their lists and nullable values
// taken from arenas made once a batch.
type rowBatch struct {
	rows   []row
	arr    []int64 // the chunk arrivals of the batch
	values []int64 // the nullable values, each pointed to by a row
	// start is the run header's start in Unix nanoseconds, when hasStart:
	// the epoch of sent_unix_ns.
	start    int64
	hasStart bool
}

// nullable is the most nullable int64 columns a row has.
const nullable = 14

func (b *rowBatch) reset(recs []llmmetrics.Record) {
	n := 0
	for i := range recs {
		n += len(recs[i].Chunks)
	}
	b.rows = b.rows[:0]
	if cap(b.arr) < n {
		b.arr = make([]int64, 0, n)
	}
	if cap(b.values) < nullable*len(recs) {
		b.values = make([]int64, 0, nullable*len(recs))
	}
	b.arr, b.values = b.arr[:0], b.values[:0]
}

// ptr returns a pointer to v kept in the batch's arena, which reset made
// large enough never to grow.
func (b *rowBatch) ptr(v int64) *int64 {
	b.values = append(b.values, v)
	return &b.values[len(b.values)-1]
}

func (b *rowBatch) dur(d time.Duration, err error) *int64 {
	if err != nil {
		return nil
	}
	return b.ptr(int64(d))
}

// add appends r's row, by the rules of llmmetrics.WriteJSONL: a count
// that is not known is null, never 0; the text times are there when they
// say something the chunks do not.
func (b *rowBatch) add(r *llmmetrics.Record) {
	x := row{
		ID:         r.ID,
		Status:     r.Status.String(),
		SentNS:     int64(r.Sent),
		Warmup:     r.Warmup || r.Preflight,
		Preflight:  r.Preflight,
		Unfinished: r.Unfinished,
		Outcome:    r.Category().String(),
	}
	if r.Message != "" {
		m := r.Message
		x.Message = &m
	}
	ok := r.Status == llmmetrics.StatusOK
	needed := len(r.Chunks) == 0 && ok && (r.CompletionTokens > 0 || r.NoUsage)
	if r.FirstText != 0 || needed {
		x.FirstTextNS = b.ptr(int64(r.FirstText))
	}
	if r.LastText != 0 || needed {
		x.LastTextNS = b.ptr(int64(r.LastText))
	}
	if len(r.Chunks) > 0 {
		start := len(b.arr)
		for _, c := range r.Chunks {
			b.arr = append(b.arr, int64(c))
		}
		x.ChunkArrivalsNS = b.arr[start:len(b.arr):len(b.arr)]
	}
	x.ChunkTokens = r.ChunkTokens
	if r.PromptTokens != 0 {
		x.PromptTokens = b.ptr(int64(r.PromptTokens))
	}
	if !(r.NoUsage || !ok && r.CompletionTokens == 0) {
		x.CompletionTokens = b.ptr(int64(r.CompletionTokens))
	}
	if r.MaxTokens != 0 {
		x.MaxTokens = b.ptr(int64(r.MaxTokens))
	}
	if c := r.Client; c != nil {
		if !c.NoWait {
			x.WaitNS = b.ptr(int64(c.Wait))
		}
		if c.HasSchedule {
			x.ScheduledNS = b.ptr(int64(c.Scheduled))
		}
		if c.HasAnswer {
			x.FirstAnswerNS = b.ptr(int64(c.FirstAnswer))
		}
		if c.HasReasoning {
			x.ReasoningTokens = b.ptr(int64(c.ReasoningTokens))
		}
		if c.HasCached {
			x.CachedPrompt = b.ptr(int64(c.CachedPromptTokens))
		}
		if c.Session != "" {
			s := c.Session
			x.Session = &s
		}
		if c.Turn != 0 {
			x.Turn = b.ptr(int64(c.Turn))
		}
		x.OneBody = c.OneBody
	}
	x.TTFTNS = b.dur(r.TTFT())
	x.E2ENS = b.dur(r.E2E())
	x.TPOTNS = b.dur(r.TPOT())
	x.MaxGapNS = b.dur(r.MaxGap())
	if b.hasStart {
		x.SentUnixNS = b.ptr(b.start + int64(r.Sent))
	}
	b.rows = append(b.rows, x)
}
