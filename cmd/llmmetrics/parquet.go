package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/formats"
	"github.com/llmmetrics/llmmetrics/parquet"
)

// isParquet says whether the input is a Parquet file: it begins with the
// magic bytes PAR1.
func isParquet(in io.Reader) (io.Reader, bool) {
	in, head := formats.Peek(in)
	return in, bytes.HasPrefix(head, []byte(parquet.Magic))
}

// isJSONLOrParquet says whether the input is JSONL or Parquet: records
// with their chunk arrivals, read as Records, not as a CSV table.
func isJSONLOrParquet(in io.Reader) (io.Reader, bool) {
	in, pq := isParquet(in)
	if pq {
		return in, true
	}
	return isJSONL(in)
}

// readRun reads a run in one of llmmetrics' formats: Parquet, told by its
// magic bytes, or CSV or JSONL (llmmetrics.ReadOptions.Read).
func readRun(in io.Reader, lenient bool) (*llmmetrics.Run, error) {
	in, pq := isParquet(in)
	if !pq {
		run, _, err := llmmetrics.ReadOptions{Lenient: lenient}.Read(in)
		return run, err
	}
	ra, size, err := readerAt(in)
	if err != nil {
		return nil, err
	}
	return parquet.ReadOptions{Lenient: lenient}.Read(ra, size)
}

// readerAt returns the input for random access, as Parquet is read: a
// regular file as it is, from its offset; anything else (standard input)
// read into memory.
func readerAt(in io.Reader) (io.ReaderAt, int64, error) {
	if f, ok := in.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
			off, err := f.Seek(0, io.SeekCurrent)
			if err != nil {
				return nil, 0, err
			}
			return io.NewSectionReader(f, off, st.Size()-off), st.Size() - off, nil
		}
	}
	b, err := io.ReadAll(in)
	return bytes.NewReader(b), int64(len(b)), err
}

// isParquetName says whether a file's name asks for Parquet.
func isParquetName(name string) bool {
	return strings.HasSuffix(strings.ToLower(name), ".parquet")
}

// parquetOut wraps the run command so that --out may name a Parquet file:
// the run writes its JSONL beside it, to OUT.jsonl, each record as its
// request ends (a run killed midway keeps what it wrote, and its scrape
// files are named from OUT as ever); when the run returns, the JSONL is
// converted to OUT, its header's --out naming OUT, and removed. A conversion that fails keeps the JSONL
// and says where it is.
func parquetOut(run func([]string, io.Reader, io.Writer) error) func([]string, io.Reader, io.Writer) error {
	return func(args []string, stdin io.Reader, stdout io.Writer) error {
		fs, f := newRunFlags()
		if _, err := parseInterleaved(fs, args); err != nil || !isParquetName(*f.out) {
			return run(args, stdin, stdout)
		}
		out := *f.out
		jsonl := out + ".jsonl"
		for _, p := range []string{out, jsonl} {
			if _, err := os.Stat(p); err == nil && !*f.force {
				return valueError(fmt.Sprintf("--out %s: %s exists; --force overwrites it", out, p))
			}
		}
		err := run(append(slices.Clone(args), "--out", jsonl), stdin, stdout)
		if _, serr := os.Stat(jsonl); serr != nil {
			return err // the run stopped before it wrote anything
		}
		// The header names the file the run was asked to write.
		named := func(run *llmmetrics.Run) {
			if h := run.Header; h != nil && h.Flags["out"] == jsonl {
				h.Flags["out"] = out
			}
		}
		if cerr := convertFile(jsonl, out, named); cerr != nil {
			return errors.Join(err, fmt.Errorf("--out %s: %w; the records are in %s", out, cerr, jsonl))
		}
		if rerr := os.Remove(jsonl); rerr != nil {
			return errors.Join(err, rerr)
		}
		return err
	}
}
