package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"strings"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/formats"
	"github.com/llmmetrics/llmmetrics/parquet"
)

var convertCommand = &command{
	name:     "convert",
	synopsis: "llmmetrics convert [--force] [--measured] IN OUT",
	about: "Convert writes a run's records in another of llmmetrics' formats: JSONL, CSV or Parquet. IN's format\n" +
		"is told by its content (Parquet by its magic bytes PAR1), OUT's by its extension: .jsonl, .csv or\n" +
		".parquet. IN - reads standard input. The records are read strictly: an invalid one, or a repeated id,\n" +
		"is an error, as report says it. JSONL and Parquet hold every record, the run header and the end line:\n" +
		"JSONL → Parquet → JSONL gives the same bytes. Parquet adds, per request, the columns ttft_ns, e2e_ns,\n" +
		"tpot_ns, max_gap_ns, outcome and sent_unix_ns (the send on the wall clock), for notebooks and for\n" +
		"shards read as one table (the schema is in docs/scale.md). CSV holds the specification's columns\n" +
		"only: no chunk arrivals, no header or end line, and no warm-up or preflight record (an error; --measured\n" +
		"leaves them out, and says how many). A run without send times (a CSV without sent_ms, or a Parquet\n" +
		"file written from one) is written without them: no sent_ns in JSONL, no sent_ms column in CSV. A run\n" +
		"whose input is cut (it ends inside its last line, as a writer killed mid-write leaves it) is written\n" +
		"to Parquet only, which keeps the cut: JSONL or CSV would read as whole. Another tool's file is\n" +
		"refused: report reads it, with the tool's conventions and notes a conversion would lose.",
	examples: []string{
		"llmmetrics convert run.jsonl run.parquet",
		"llmmetrics convert run.parquet run.jsonl",
		"llmmetrics convert --force run.csv run.parquet",
		"llmmetrics convert --measured run.jsonl run.csv",
	},
	flags: func() *flag.FlagSet { fs, _ := newConvertFlags(); return fs },
}

// convertFlags are convert's flags.
type convertFlags struct{ force, measured *bool }

func newConvertFlags() (*flag.FlagSet, convertFlags) {
	fs := flag.NewFlagSet("convert", flag.ContinueOnError)
	var f convertFlags
	f.force = fs.Bool("force", false, "overwrite OUT when it exists")
	f.measured = fs.Bool("measured", false, "leave out the warm-up and preflight requests, which CSV cannot mark, and say how many")
	return fs, f
}

// convertRun is the convert command.
func convertRun(args []string, stdin io.Reader, stdout io.Writer) error {
	fs, f := newConvertFlags()
	force := f.force
	files, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(files) != 2 {
		return fmt.Errorf("%w: convert takes IN and OUT, %d file(s) given", errUsage, len(files))
	}
	in, out := files[0], files[1]
	if _, err := outputFormat(out); err != nil {
		return err
	}
	if in != "-" && samePath(in, out) {
		return valueError(fmt.Sprintf("convert: OUT %s is IN: it would be overwritten", out))
	}
	if _, err := os.Stat(out); err == nil && !*force {
		return valueError(fmt.Sprintf("convert: %s exists; --force overwrites it", out))
	}
	r, name, closeIn, err := open([]string{in}, stdin)
	if err != nil {
		return err
	}
	defer closeIn()
	var edit func(*llmmetrics.Run)
	if *f.measured {
		edit = func(run *llmmetrics.Run) { leaveOutUnmeasured(stdout, run) }
	}
	return convertReader(r, name, out, edit, stdout)
}

// leaveOutUnmeasured takes the warm-up and preflight records out of run,
// and out of its end line's counts, saying how many on w.
func leaveOutUnmeasured(w io.Writer, run *llmmetrics.Run) {
	warm, pre := 0, 0
	kept := make([]llmmetrics.Record, 0, len(run.Records))
	for _, r := range run.Records {
		switch {
		case r.Preflight:
			pre++
		case r.Warmup:
			warm++
		default:
			kept = append(kept, r)
		}
	}
	run.Records = kept
	if e := run.End; e != nil { // the end line counts what the file now holds
		c := *e
		c.Written -= warm + pre
		if c.Planned >= warm+pre {
			c.Planned -= warm + pre
		}
		run.End = &c
	}
	fmt.Fprintf(w, "convert: left out %d warm-up and %d preflight requests (--measured)\n", warm, pre)
}

// convertFile converts the file in to the file out, the run first given
// to edit when it is not nil.
func convertFile(in, out string, edit func(*llmmetrics.Run)) error {
	f, err := os.Open(in)
	if err != nil {
		return err
	}
	defer f.Close()
	return convertReader(f, in, out, edit, io.Discard)
}

// convertReader reads a run from r, named name, and writes it to the file
// out in the format its extension names, the run first given to edit when
// it is not nil, saying on note what a CSV file leaves out (csvLeavesOut).
// A write that fails removes out.
func convertReader(r io.Reader, name, out string, edit func(*llmmetrics.Run), note io.Writer) error {
	format, err := outputFormat(out)
	if err != nil {
		return err
	}
	r, head := formats.Peek(r)
	if isPlan(head) { // a dry run's plan (dryrun.go)
		return fmt.Errorf("%s: a dry run's plan, not a run: nothing to convert (report describes it)", name)
	}
	if err := ownFormat(r, name); err != nil {
		return err
	}
	run, err := readRun(r, false)
	if err == nil {
		err = repeatedID(run)
	}
	if err == nil {
		err = invalidRecord(run)
	}
	if err != nil {
		return inFile(name, err) // convert reads strictly: it has no --lenient
	}
	if err := keepsCut(run, name, format); err != nil {
		return err
	}
	if edit != nil {
		edit(run)
	}
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	switch format {
	case "parquet":
		err = parquet.Write(bw, run)
	case "csv":
		err = run.WriteCSV(bw) // without sent_ms when it has no send times
	default:
		err = writeJSONLRun(bw, run)
	}
	if err == nil {
		err = bw.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(out)
		if re := (*llmmetrics.RecordError)(nil); errors.As(err, &re) && re.Line == 0 && re.Index >= 0 && re.Index < len(run.Lines) {
			re.Line = run.Lines[re.Index] // the writer counts records; name the input's line
		}
		if format == "csv" && errors.Is(err, llmmetrics.ErrMissingField) && !strings.Contains(err.Error(), "no usable output token count") {
			return fmt.Errorf("writing %s: %s (convert --measured leaves out the warm-up and preflight requests)", out, trimPrefix(err))
		}
		return fmt.Errorf("writing %s: %s", out, trimPrefix(err))
	}
	if format == "csv" {
		if lost := csvLeavesOut(run); lost != "" {
			fmt.Fprintf(note, "convert: %s keeps no %s, which the CSV format has no column for; .jsonl and .parquet keep them\n", out, lost)
		}
	}
	return nil
}

// csvLeavesOut names what of run a CSV file cannot keep, "" for nothing:
// chunk arrival times (whose ITL and max gap a report of it lacks),
// max_tokens (its early stops), the client's timings, the run's header
// and end line.
func csvLeavesOut(run *llmmetrics.Run) string {
	var chunks, maxTokens, client bool
	for i := range run.Records {
		r := &run.Records[i]
		chunks = chunks || len(r.Chunks) > 0
		maxTokens = maxTokens || r.MaxTokens > 0
		client = client || r.Client != nil
	}
	var lost []string
	for _, l := range []struct {
		has  bool
		what string
	}{
		{chunks, "chunk arrival times (ITL, max gap)"}, {maxTokens, "max_tokens (early stops)"},
		{client, "client timings (wait, schedule)"}, {run.Header != nil, "run header (id, load, environment)"},
		{run.End != nil, "end line (how the run ended)"},
	} {
		if l.has {
			lost = append(lost, l.what)
		}
	}
	return strings.Join(lost, ", ")
}

// invalidRecord returns the error report gives for the first record that
// is not valid (chunk tokens that disagree with the count, chunks that go
// backwards, a negative count), named by its line: written, it would be
// a row report refuses at another line, or reads as valid.
func invalidRecord(run *llmmetrics.Run) error {
	for i := range run.Records {
		var re *llmmetrics.RecordError
		if err := run.Records[i].Validate(); errors.As(err, &re) {
			re.Index, re.ID = i, run.Records[i].ID
			if i < len(run.Lines) {
				re.Line = run.Lines[i]
			}
			return re
		}
	}
	return nil
}

// repeatedID returns the error report gives for the first record whose
// id an earlier one has (wrapping llmmetrics.ErrDuplicateID), or nil: a
// run's ids are unique, and a file that breaks it would be written only
// for report to refuse it.
func repeatedID(run *llmmetrics.Run) error {
	where := func(i int) (int, string) {
		if i < len(run.Lines) {
			return run.Lines[i], fmt.Sprintf("line %d", run.Lines[i])
		}
		return 0, fmt.Sprintf("record %d", i)
	}
	first := make(map[string]int, len(run.Records))
	for i := range run.Records {
		id := run.Records[i].ID
		j, seen := first[id]
		if !seen {
			first[id] = i
			continue
		}
		line, _ := where(i)
		_, also := where(j)
		return &llmmetrics.RecordError{Index: i, Line: line, ID: id, Field: "id",
			Err: fmt.Errorf("%w: also %s", llmmetrics.ErrDuplicateID, also)}
	}
	return nil
}

// outputFormat returns the format an output file's extension names.
func outputFormat(out string) (string, error) {
	switch ext := strings.ToLower(filepath.Ext(out)); ext {
	case ".parquet", ".csv", ".jsonl":
		return ext[1:], nil
	default:
		return "", valueError(fmt.Sprintf("convert: OUT %s: name it .jsonl, .csv or .parquet, the format to write", out))
	}
}

// writeJSONLRun writes a run as llmmetrics' JSONL: its header line, its
// records and its end line, as the run command wrote them.
func writeJSONLRun(w io.Writer, run *llmmetrics.Run) error {
	c := *run
	if c.Header != nil {
		c.Header = headerAsWritten(c.Header, c.End)
	}
	return c.WriteJSONL(w) // without sent_ns when it has no send times
}

// headerAsWritten returns a run header as its writer wrote it: a reader
// adds the end line's load facts to the header's Load, and they are the
// end line's to say (the parquet package's Write does the same).
func headerAsWritten(h *llmmetrics.RunHeader, e *llmmetrics.RunEnd) *llmmetrics.RunHeader {
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

// ownFormat refuses another tool's file, which report reads: its records
// alone, written in llmmetrics' formats, would lose what report says of
// them (the tool's conventions, the notes on what its file lacks, the
// requests set aside) and read as a run llmmetrics measured.
func ownFormat(r io.Reader, name string) error {
	tool, _, err := detect(r, name) // report.go; it peeks, so r still holds every byte
	if err != nil {
		return inFile(name, err)
	}
	if tool != "" {
		return fmt.Errorf("%s is %s %s file: convert reads llmmetrics' own formats (JSONL, CSV, Parquet); report reads it", name, article(tool.Name()), tool.Name())
	}
	return nil
}

// article is "an" before a name said with a vowel sound (an initialism's
// letter, such as L or S, included), else "a".
func article(name string) string {
	if name != "" && strings.ContainsRune("AEIFHLMNORSXaeiou", rune(name[0])) {
		return "an"
	}
	return "a"
}

// keepsCut refuses to write a cut run (see llmmetrics.Cut) to JSONL or
// CSV: neither can say the input ended inside a line, and the file
// written would read as whole; Parquet keeps the cut.
func keepsCut(run *llmmetrics.Run, name, format string) error {
	c := run.Cut
	if c == nil || format == "parquet" {
		return nil
	}
	instead := "convert it to .parquet, which keeps the cut"
	if strings.HasSuffix(strings.ToLower(name), ".parquet") {
		instead = "keep it in Parquet, which keeps the cut and which report, diff and sweep read"
	}
	return fmt.Errorf("%s is cut: it ends inside line %d (%d bytes of an unfinished %s after record %d); a .%s file cannot say so and would read as whole: %s",
		name, c.Line, c.Bytes, c.Of, c.After, format, instead)
}
