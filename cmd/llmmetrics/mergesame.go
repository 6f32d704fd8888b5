package main

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"time"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/internal/samerun"
)

// sameRunTwice refuses a run given twice under two names: two files are
// one run when their headers carry one run id (each run gets its own) or
// are identical, start to the nanosecond and load and all; when their
// measured records are, whatever their headers say (a copy with its
// header edited, a host renamed; a CSV or Parquet file converted from the
// other: samerun.Records), in memory, or their first batches' are, in
// bounded memory; when their bytes after the header line are; and when
// their bytes are. Merged, a run twice would count every request twice
// and double every rate. A header says which run a file is when it has a
// start and more than it (a tool, a load).
func sameRunTwice(runs []namedRun) error {
	for i, r := range runs {
		for _, o := range runs[:i] {
			if why := sameRunWhy(o, r); why != "" {
				return valueError(fmt.Sprintf("--merge: %s and %s are the same run: %s: a copy merged with its file counts every request twice; merge each run's file once",
					o.name, r.name, why))
			}
		}
	}
	return nil
}

// sameRunWhy says why two merged files are one run, or "".
func sameRunWhy(o, r namedRun) string {
	ho, hr := o.run.Header, r.run.Header
	switch {
	case ho != nil && hr != nil && ho.ID != "" && ho.ID == hr.ID:
		return "their run headers carry the same run id " + hr.ID
	case ho != nil && hr != nil && reflect.DeepEqual(*ho, *hr) && tellsRun(hr, r.run.NoSendTimes):
		return fmt.Sprintf("their run headers are identical (start %s, and the load and the rest)", hr.Start.Format(time.RFC3339Nano))
	case sameBytes(o.name, r.name):
		return "their content is identical"
	case o.records() > 0 && r.records() > 0 && sameBody(o.name, r.name):
		return "their records are identical, byte for byte after the header line"
	case samerun.Records(o.run.Records, r.run.Records):
		return "their measured records are identical (ids, statuses, times to the nanosecond and token counts)"
	case o.file != nil && r.file != nil && samerun.Prefix(o.head, r.head): // in bounded memory
		return "their first measured records are identical (ids, statuses, times to the nanosecond and token counts)"
	}
	return ""
}

// tellsRun says whether a merged file's header names its run: it has a
// start of its own and something besides. The files of a merge without
// send times and without a start are given one (withStarts): the epoch,
// or the others' earliest, which names no run.
func tellsRun(h *llmmetrics.RunHeader, unsent bool) bool {
	bare := llmmetrics.RunHeader{Start: h.Start}
	if reflect.DeepEqual(*h, bare) {
		return false // a header-less file's, given a start
	}
	return !unsent || !h.Start.Equal(time.Unix(0, 0))
}

// sameBytes says whether two files hold the same bytes; false when either
// cannot be read (standard input is read once).
func sameBytes(a, b string) bool {
	if a == "-" || b == "-" {
		return false
	}
	sa, err1 := os.Stat(a)
	sb, err2 := os.Stat(b)
	if err1 != nil || err2 != nil || sa.Size() != sb.Size() {
		return false
	}
	ha, ok1 := hashFile(a)
	hb, ok2 := hashFile(b)
	return ok1 && ok2 && bytes.Equal(ha, hb)
}

// hashFile is the SHA-256 of a file's bytes.
func hashFile(name string) ([]byte, bool) {
	f, err := os.Open(name)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return nil, false
	}
	return h.Sum(nil), true
}

// sameBody says whether two files hold the same bytes after their first
// line (a JSONL file's run header): a copy whose header was edited. It
// compares the first 64 KiB before hashing the rest, so that two runs,
// which differ from their first record, are told apart without reading
// them whole; false when either cannot be read.
func sameBody(a, b string) bool {
	if a == "-" || b == "-" {
		return false
	}
	fa, err1 := os.Open(a)
	fb, err2 := os.Open(b)
	if err1 != nil || err2 != nil {
		return false
	}
	defer fa.Close()
	defer fb.Close()
	ra, rb := bufio.NewReaderSize(fa, 64<<10), bufio.NewReaderSize(fb, 64<<10)
	for _, r := range []*bufio.Reader{ra, rb} {
		if _, err := r.ReadSlice('\n'); err != nil && !errors.Is(err, bufio.ErrBufferFull) {
			return false // one line, or none: no body
		}
	}
	pa, _ := ra.Peek(64 << 10)
	pb, _ := rb.Peek(64 << 10)
	if len(pa) == 0 || !bytes.Equal(pa, pb) {
		return false
	}
	ha, hb := sha256.New(), sha256.New()
	_, err1 = io.Copy(ha, ra)
	_, err2 = io.Copy(hb, rb)
	return err1 == nil && err2 == nil && bytes.Equal(ha.Sum(nil), hb.Sum(nil))
}

// apartUnsent refuses files without send times that are not shards of one
// plan (run --shard writes the shard and the plan id) when their headers'
// starts are further apart than machines that start one run together
// are (lateStart, the slack of --start-at): nothing else shows they are
// one run, since they have no window to overlap, and two runs merged
// would pool two runs' requests under the first one's load.
func apartUnsent(runs []namedRun) error {
	if !runs[0].run.NoSendTimes { // as every file (sendTimesDisagree)
		return nil
	}
	for _, r := range runs {
		if r.run.Header.Load["shard"] != "" {
			return nil // checkShards and the plan id decide
		}
	}
	first, last := runs[0], runs[0]
	for _, r := range runs[1:] { // a file without a start was given the earliest (withStarts)
		if r.run.Header.Start.Before(first.run.Header.Start) {
			first = r
		}
		if r.run.Header.Start.After(last.run.Header.Start) {
			last = r
		}
	}
	apart := last.run.Header.Start.Sub(first.run.Header.Start)
	if apart <= lateStart {
		return nil
	}
	return valueError(fmt.Sprintf("--merge: %s and %s have no send times, and their run headers' starts are %v apart, more than the %v of machines that start one run together; nor are they shards of one plan (run --shard writes the shard and the plan id): they are separate runs, so report each, or compare them with diff",
		first.name, last.name, apart, lateStart))
}

// records counts the file's records, read in memory or by the first pass
// of a merge in bounded memory.
func (r namedRun) records() int {
	if r.file != nil {
		return r.file.Records
	}
	return len(r.run.Records)
}
