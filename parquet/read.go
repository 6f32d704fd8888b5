package parquet

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"strconv"
	"strings"
	"time"

	"github.com/llmmetrics/llmmetrics"
	"github.com/parquet-go/parquet-go"
)

// Errors of a file that is not a Parquet file of llmmetrics' records.
var (
	// ErrSchema means the file's columns or metadata are not the
	// schema's: a column missing, of another type, or one the schema does
	// not have; a metadata value that cannot be read.
	ErrSchema = errors.New("parquet: not the schema of llmmetrics' records")
	// ErrCorrupt means the bytes are not a whole Parquet file: truncated,
	// or damaged.
	ErrCorrupt = errors.New("parquet: not a whole Parquet file")
)

// Magic is the four bytes a Parquet file begins and ends with.
const Magic = "PAR1"

// ReadOptions controls Read. The zero ReadOptions is strict.
type ReadOptions struct {
	// Lenient sets aside the rows whose record is invalid (Run.Reject),
	// and returns the Run with Run.Err, as llmmetrics.ReadOptions does;
	// without it the first such row is the error. A file that is not one
	// of llmmetrics' records is an error in either mode.
	Lenient bool
}

// Read reads a run from a Parquet file of size bytes, strictly; see
// ReadOptions.Read.
func Read(r io.ReaderAt, size int64) (*llmmetrics.Run, error) {
	return ReadOptions{}.Read(r, size)
}

// Read reads a run from a Parquet file of size bytes, written by Write
// or by any tool to the schema (see the package documentation): its
// records, with Lines[i] the row of Records[i] (from 1), and its header,
// end line, cut, window and NoSendTimes from the key-value metadata. The
// end line's load facts are added to the header's, as
// llmmetrics.ReadJSONL adds them. The derived columns are not read.
//
// A file whose columns are not the schema's, or whose metadata cannot be
// read, is an error wrapping ErrSchema that names the column or key; a
// truncated or damaged file, one wrapping ErrCorrupt. A row whose record
// is invalid (llmmetrics.Record.Validate) is a *llmmetrics.RecordError
// with its row (Index, from 0) and its column. Memory is bounded by the
// file: no length the file states is trusted beyond its size.
func (o ReadOptions) Read(r io.ReaderAt, size int64) (run *llmmetrics.Run, err error) {
	defer func() {
		// The library panics on some damaged files: an error, never a
		// panic, for anything from data.
		if p := recover(); p != nil {
			run, err = nil, fmt.Errorf("%w: %v", ErrCorrupt, p)
		}
	}()
	f, err := openFile(r, size)
	if err != nil {
		return nil, err
	}
	run = &llmmetrics.Run{}
	if err := readMetadata(f, run); err != nil {
		return nil, err
	}
	addEndLoad(run)
	if err := o.readRows(f, run); err != nil {
		return nil, err
	}
	return run, run.Err()
}

// openFile opens a Parquet file of size bytes and checks its ends, its
// column chunks and its schema.
func openFile(r io.ReaderAt, size int64) (*parquet.File, error) {
	if err := checkEnds(r, size); err != nil {
		return nil, err
	}
	f, err := parquet.OpenFile(r, size, parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	if err := checkChunks(f, size); err != nil {
		return nil, err
	}
	if err := checkSchema(f.Schema()); err != nil {
		return nil, err
	}
	return f, nil
}

// checkEnds checks the magic bytes at both ends and that the footer's
// length fits the file, before the library trusts that length.
func checkEnds(r io.ReaderAt, size int64) error {
	if size < 12 {
		return fmt.Errorf("%w: %d bytes, too short for a Parquet file", ErrCorrupt, size)
	}
	var head, tail [8]byte
	if _, err := r.ReadAt(head[:4], 0); err != nil {
		return fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	if _, err := r.ReadAt(tail[:], size-8); err != nil {
		return fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	if string(head[:4]) != Magic {
		return fmt.Errorf("%w: it does not begin with %q", ErrCorrupt, Magic)
	}
	if string(tail[4:]) != Magic {
		return fmt.Errorf("%w: it does not end with %q: truncated, or not Parquet", ErrCorrupt, Magic)
	}
	if n := int64(binary.LittleEndian.Uint32(tail[:4])); n > size-12 {
		return fmt.Errorf("%w: its footer says %d bytes, more than the file's %d: truncated", ErrCorrupt, n, size)
	}
	return nil
}

// checkChunks checks that every column chunk the footer places lies in
// the file, so that no read is sized by a length the file cannot hold.
func checkChunks(f *parquet.File, size int64) error {
	for g, rg := range f.Metadata().RowGroups {
		if rg.NumRows < 0 || rg.NumRows > size*8 {
			return fmt.Errorf("%w: row group %d says %d rows in %d bytes", ErrCorrupt, g, rg.NumRows, size)
		}
		for _, c := range rg.Columns {
			m := c.MetaData
			start := m.DataPageOffset
			if m.DictionaryPageOffset > 0 && m.DictionaryPageOffset < start {
				start = m.DictionaryPageOffset
			}
			if start < 4 || m.TotalCompressedSize < 0 || start+m.TotalCompressedSize > size || m.NumValues < 0 {
				return fmt.Errorf("%w: column %s of row group %d lies outside the file", ErrCorrupt, dotted(m.PathInSchema), g)
			}
		}
	}
	return nil
}

func dotted(path []string) string {
	s := ""
	for i, p := range path {
		if i > 0 {
			s += "."
		}
		s += p
	}
	return s
}

// schema is the schema of the records, from row.
var schema = parquet.SchemaOf(row{})

// checkSchema compares the file's columns with the schema's: the same
// names, physical types and repetitions (encodings and compression are
// the writer's choice).
func checkSchema(got *parquet.Schema) error {
	return checkFields("", schema.Fields(), got.Fields())
}

func checkFields(path string, want, got []parquet.Field) error {
	byName := make(map[string]parquet.Field, len(got))
	for _, g := range got {
		byName[g.Name()] = g
	}
	for _, w := range want {
		name := path + w.Name()
		g, ok := byName[w.Name()]
		if !ok && path == "" && optionalColumn(name) {
			continue
		}
		if !ok {
			return fmt.Errorf("%w: column %s is missing", ErrSchema, name)
		}
		delete(byName, w.Name())
		if err := checkNode(name, w, g); err != nil {
			return err
		}
	}
	for _, g := range got {
		if _, extra := byName[g.Name()]; extra {
			return fmt.Errorf("%w: column %s is not one of the schema's", ErrSchema, path+g.Name())
		}
	}
	return nil
}

func checkNode(name string, w, g parquet.Node) error {
	if describe(w) != describe(g) {
		return fmt.Errorf("%w: column %s is %s, want %s", ErrSchema, name, describe(g), describe(w))
	}
	if w.Leaf() {
		return nil
	}
	return checkFields(name+".", w.Fields(), g.Fields())
}

// describe says a node's repetition and type as the schema cares for
// them: "optional int64", "required group".
func describe(n parquet.Node) string {
	rep := "required"
	switch {
	case n.Optional():
		rep = "optional"
	case n.Repeated():
		rep = "repeated"
	}
	if !n.Leaf() {
		return rep + " group"
	}
	return rep + " " + strings.ToLower(n.Type().Kind().String())
}

// readMetadata reads the run's header, as its writer wrote it, end line,
// cut, window and NoSendTimes from the file's key-value metadata.
func readMetadata(f *parquet.File, run *llmmetrics.Run) error {
	if v, ok := f.Lookup(keySchema); ok && v != schemaVersion {
		return fmt.Errorf("%w: %s is %q; this reader reads version %s", ErrSchema, keySchema, v, schemaVersion)
	}
	decode := func(key string, dst any) (bool, error) {
		v, ok := f.Lookup(key)
		if !ok {
			return false, nil
		}
		dec := json.NewDecoder(bytes.NewReader([]byte(v)))
		dec.DisallowUnknownFields()
		if err := dec.Decode(dst); err != nil {
			return false, fmt.Errorf("%w: metadata %s: %v", ErrSchema, key, err)
		}
		return true, nil
	}
	var h llmmetrics.RunHeader
	if ok, err := decode(keyRun, &h); err != nil {
		return err
	} else if ok {
		run.Header = &h
	}
	var e llmmetrics.RunEnd
	if ok, err := decode(keyEnd, &e); err != nil {
		return err
	} else if ok {
		if e.State != "completed" && e.State != "interrupted" {
			return fmt.Errorf("%w: metadata %s: state %q, want completed or interrupted", ErrSchema, keyEnd, e.State)
		}
		run.End = &e
	}
	var c llmmetrics.Cut
	if ok, err := decode(keyCut, &c); err != nil {
		return err
	} else if ok {
		run.Cut = &c
	}
	if v, ok := f.Lookup(keyWindow); ok {
		ns, err := strconv.ParseInt(v, 10, 64)
		if err != nil || ns <= 0 {
			return fmt.Errorf("%w: metadata %s: %q is not a positive number of nanoseconds", ErrSchema, keyWindow, v)
		}
		run.Window = time.Duration(ns)
	}
	if v, ok := f.Lookup(keyNoSendTimes); ok {
		if v != "true" {
			return fmt.Errorf("%w: metadata %s: %q, want true", ErrSchema, keyNoSendTimes, v)
		}
		run.NoSendTimes = true
	}
	return nil
}

// addEndLoad adds the end line's load facts to the header's, as
// llmmetrics.ReadJSONL does.
func addEndLoad(run *llmmetrics.Run) {
	if run.Header == nil || run.End == nil || len(run.End.Load) == 0 {
		return
	}
	if run.Header.Load == nil {
		run.Header.Load = map[string]string{}
	}
	maps.Copy(run.Header.Load, run.End.Load)
}

// readRows reads the records, a batch of rows at a time.
func (o ReadOptions) readRows(f *parquet.File, run *llmmetrics.Run) error {
	rows := parquet.NewGenericReader[row](f)
	defer rows.Close()
	if n := rows.NumRows(); n > 0 {
		n = min(n, 1<<20) // a hint, not trusted beyond a bound
		run.Records = make([]llmmetrics.Record, 0, n)
		run.Lines = make([]int, 0, n)
	}
	batch := make([]row, 1024)
	index := 0
	for {
		clear(batch)
		n, err := rows.Read(batch)
		arena := make([]time.Duration, 0, arrivals(batch[:n]))
		for i := range batch[:n] {
			rec, rerr := valid(&batch[i], index, &arena)
			if rerr != nil {
				if !o.Lenient {
					return rerr
				}
				run.Reject(rerr)
			} else {
				run.Records = append(run.Records, rec)
				run.Lines = append(run.Lines, index+1)
			}
			index++
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%w: row %d: %v", ErrCorrupt, index, err)
		}
	}
}

func arrivals(rows []row) int {
	n := 0
	for i := range rows {
		n += len(rows[i].ChunkArrivalsNS)
	}
	return n
}

// valid returns the record of row x, the index-th of the file, or its
// error naming the row and the column when the record is invalid.
func valid(x *row, index int, arena *[]time.Duration) (llmmetrics.Record, *llmmetrics.RecordError) {
	rec, rerr := record(x, arena)
	if rerr == nil {
		if verr := rec.Validate(); verr != nil {
			rerr = atRow(index, verr).(*llmmetrics.RecordError)
		}
	}
	if rerr != nil {
		rerr.Index, rerr.ID = index, x.ID
	}
	return rec, rerr
}

// record returns the record of a row, by the rules of llmmetrics.ReadJSONL:
// an ok row without completion_tokens has no usage (NoUsage); a preflight
// row is warm-up too; the client's facts are there when any is.
func record(x *row, arena *[]time.Duration) (llmmetrics.Record, *llmmetrics.RecordError) {
	fail := func(column string, sentinel error, format string, args ...any) *llmmetrics.RecordError {
		return &llmmetrics.RecordError{Field: column, Err: fmt.Errorf("%w: %s", sentinel, fmt.Sprintf(format, args...))}
	}
	rec := llmmetrics.Record{
		ID:         x.ID,
		Sent:       time.Duration(x.SentNS),
		Warmup:     x.Warmup || x.Preflight,
		Preflight:  x.Preflight,
		Unfinished: x.Unfinished,
	}
	if err := rec.Status.UnmarshalText([]byte(x.Status)); err != nil {
		return rec, &llmmetrics.RecordError{Field: "status", Err: err}
	}
	if x.Message != nil {
		rec.Message = *x.Message
	}
	if x.FirstTextNS != nil {
		rec.FirstText = time.Duration(*x.FirstTextNS)
	}
	if x.LastTextNS != nil {
		rec.LastText = time.Duration(*x.LastTextNS)
	}
	if len(x.ChunkArrivalsNS) > 0 {
		start := len(*arena)
		for _, c := range x.ChunkArrivalsNS {
			*arena = append(*arena, time.Duration(c))
		}
		rec.Chunks = (*arena)[start:len(*arena):len(*arena)]
	}
	if len(x.ChunkTokens) > 0 {
		rec.ChunkTokens = append([]int32(nil), x.ChunkTokens...)
	}
	if cerr := counts(&rec, x); cerr != nil {
		return rec, cerr
	}
	if rec.Status == llmmetrics.StatusOK && (rec.CompletionTokens > 0 || rec.NoUsage) && len(rec.Chunks) == 0 {
		for _, c := range []struct {
			column string
			v      *int64
		}{{"first_text_ns", x.FirstTextNS}, {"last_text_ns", x.LastTextNS}} {
			if c.v == nil {
				return rec, fail(c.column, llmmetrics.ErrMissingField, "an ok record with text needs chunk_arrivals_ns or first_text_ns and last_text_ns")
			}
		}
	}
	var cerr *llmmetrics.RecordError
	rec.Client, cerr = client(x)
	return rec, cerr
}

// count returns a count column's value: 0 when null, an error when
// negative or above llmmetrics.MaxCount.
func count(column string, v *int64) (int, *llmmetrics.RecordError) {
	switch {
	case v == nil:
		return 0, nil
	case *v < 0:
		return 0, &llmmetrics.RecordError{Field: column, Err: fmt.Errorf("%w: %d", llmmetrics.ErrNegativeCount, *v)}
	case *v > llmmetrics.MaxCount:
		return 0, &llmmetrics.RecordError{Field: column, Err: fmt.Errorf("%w: %d is above %d", llmmetrics.ErrOutOfRange, *v, llmmetrics.MaxCount)}
	}
	return int(*v), nil
}

// counts sets the record's token counts; an ok row without
// completion_tokens has no usage (NoUsage), never a count of 0.
func counts(rec *llmmetrics.Record, x *row) *llmmetrics.RecordError {
	var cerr *llmmetrics.RecordError
	if rec.PromptTokens, cerr = count("prompt_tokens", x.PromptTokens); cerr != nil {
		return cerr
	}
	if rec.MaxTokens, cerr = count("max_tokens", x.MaxTokens); cerr != nil {
		return cerr
	}
	if rec.CompletionTokens, cerr = count("completion_tokens", x.CompletionTokens); cerr != nil {
		return cerr
	}
	if x.CompletionTokens == nil && rec.Status == llmmetrics.StatusOK {
		rec.NoUsage = true // the server reported no count: n unknown, never guessed
	}
	return nil
}

// client returns the client's facts of a row, or nil when it has none.
func client(x *row) (*llmmetrics.ClientSide, *llmmetrics.RecordError) {
	if x.ScheduledNS == nil && x.WaitNS == nil && x.FirstAnswerNS == nil && x.ReasoningTokens == nil &&
		x.CachedPrompt == nil && x.Session == nil && x.Turn == nil {
		return nil, nil
	}
	c := &llmmetrics.ClientSide{}
	if x.WaitNS != nil {
		c.Wait = time.Duration(*x.WaitNS)
	} else {
		c.NoWait = true // client facts without a wait: unknown, not 0
	}
	if x.ScheduledNS != nil {
		c.Scheduled, c.HasSchedule = time.Duration(*x.ScheduledNS), true
	}
	if x.FirstAnswerNS != nil {
		c.FirstAnswer, c.HasAnswer = time.Duration(*x.FirstAnswerNS), true
	}
	if x.ReasoningTokens != nil {
		var cerr *llmmetrics.RecordError
		if c.ReasoningTokens, cerr = count("reasoning_tokens", x.ReasoningTokens); cerr != nil {
			return nil, cerr
		}
		c.HasReasoning = true
	}
	if x.CachedPrompt != nil {
		var cerr *llmmetrics.RecordError
		if c.CachedPromptTokens, cerr = count("cached_prompt_tokens", x.CachedPrompt); cerr != nil {
			return nil, cerr
		}
		c.HasCached = true
	}
	if x.Session != nil {
		c.Session = *x.Session
	}
	c.OneBody = x.OneBody
	if x.Turn != nil {
		var cerr *llmmetrics.RecordError
		if c.Turn, cerr = count("turn", x.Turn); cerr != nil {
			return nil, cerr
		}
	}
	return c, nil
}
