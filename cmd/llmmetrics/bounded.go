package main

import (
	"bufio"
	"cmp"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/big"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/bounded"
)

// inMemoryFactor is how many times its size a file of llmmetrics' JSONL
// or CSV takes in memory when read whole and summarized, at most: the
// records, their chunk arrivals and the summary's lists (a file of
// records of 16 chunks takes about twice its size).
const inMemoryFactor = 3

// minBudget is the least budget a bounded summary is given, whatever
// --max-memory says: the selection of five samples needs some.
const minBudget = 64 << 10

// maxMemory is report's --max-memory: the memory a report may take, in
// bytes, once parse has read the flag; 0 when it was not given.
type maxMemory struct {
	text  *string
	bytes int64
	stdin *stdinSpool // standard input, when it may be read in passes (stdin.go)
}

func (m *maxMemory) define(fs *flag.FlagSet) {
	m.text = fs.String("max-memory", "", "the memory report may take, e.g. `512MiB`, 8G or 1.5GiB (K, M, G, T: powers of 1000; Ki, Mi, Gi, Ti: of 1024; B optional, any case) (default: half the memory the process may use: its container's cgroup limit, or else the physical memory of /proc/meminfo, or 4GiB where neither can be read): a file of llmmetrics' JSONL, CSV or Parquet, or --merge's files, that would take more in memory (3 times their size, 12 times for Parquet) is summarized in bounded memory instead, read several times; standard input that does not end within it is written to a temporary file, removed when report ends, and read from there (docs/scale.md)")
}

// parse reads the flag's size.
func (m *maxMemory) parse() error {
	if *m.text == "" {
		return nil
	}
	n, err := parseSize(*m.text)
	if err != nil {
		return valueError("--max-memory " + err.Error())
	}
	m.bytes = n
	return nil
}

// limit returns the bytes given, or half the memory the process may use
// (see usableMemory).
func (m *maxMemory) limit() int64 {
	if m.bytes > 0 {
		return m.bytes
	}
	if total, ok := usableMemory("/proc/meminfo", cgroupLimitFiles); ok {
		return total / 2
	}
	return 4 << 30
}

// sizeUnits are the units --max-memory takes, in lower case: K, M, G
// and T are powers of 1000, Ki, Mi, Gi and Ti powers of 1024 (as
// Kubernetes writes quantities), each with or without a B, in any case.
var sizeUnits = map[string]int64{
	"": 1, "b": 1,
	"k": 1e3, "kb": 1e3, "m": 1e6, "mb": 1e6, "g": 1e9, "gb": 1e9, "t": 1e12, "tb": 1e12,
	"ki": 1 << 10, "kib": 1 << 10, "mi": 1 << 20, "mib": 1 << 20,
	"gi": 1 << 30, "gib": 1 << 30, "ti": 1 << 40, "tib": 1 << 40,
}

// parseSize reads a positive size in bytes: a number, whole or with a
// decimal fraction (1.5GiB), and a unit of sizeUnits or none; a fraction
// of a byte is dropped.
func parseSize(s string) (int64, error) {
	bad := fmt.Errorf("%s: not a positive size, such as 512MiB, 1.5GiB, 8G or 1048576", s)
	t := strings.TrimSpace(s)
	k := strings.IndexFunc(t, func(r rune) bool { return (r < '0' || r > '9') && r != '.' })
	if k < 0 {
		k = len(t)
	}
	num, unit := t[:k], strings.ToLower(strings.TrimSpace(t[k:]))
	whole, frac, _ := strings.Cut(num, ".")
	mult, ok := sizeUnits[unit]
	if !ok || whole == "" || strings.HasSuffix(num, ".") || strings.Contains(frac, ".") {
		return 0, bad
	}
	r, ok := new(big.Rat).SetString(num)
	if !ok {
		return 0, bad
	}
	r.Mul(r, new(big.Rat).SetInt64(mult))
	n := new(big.Int).Quo(r.Num(), r.Denom())
	if n.Sign() <= 0 || n.Cmp(big.NewInt(1<<62)) > 0 {
		return 0, bad
	}
	return n.Int64(), nil
}

// physicalMemory reads MemTotal from a file in the form of /proc/meminfo.
func physicalMemory(path string) (int64, bool) {
	f, err := os.Open(path)
	if err != nil {
		return 0, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) == 3 && fields[0] == "MemTotal:" && fields[2] == "kB" {
			kb, err := strconv.ParseInt(fields[1], 10, 64)
			return kb << 10, err == nil && kb > 0
		}
	}
	return 0, false
}

// reportBounded reports the one file named, or standard input spooled to
// a file, in bounded memory when it is llmmetrics' JSONL, CSV or Parquet
// and would take more than --max-memory in memory; it says whether it
// did. The flags that need the records in memory keep them there, said
// in a note.
func (f *reportFlags) reportBounded(w io.Writer, files []string, opt *llmmetrics.Options) (bool, error) {
	ins, closeIns, ok := f.maxMemory.inputs(files)
	if !ok {
		return false, nil
	}
	defer closeIns()
	f.maxMemory.spoolNote(ins[0], opt)
	over, budget, ok := f.overMemory(ins, opt)
	if !ok {
		return false, nil
	}
	srcs, err := sources(ins)
	if err != nil {
		return true, err
	}
	name := ins[0].name
	var failed errorTally
	s, cost, err := bounded.SummarizeSources(srcs, bounded.Options{Options: *opt, Budget: budget, Failed: failed.add}, nil)
	if err != nil {
		return true, inFile(name, withLenientHint(noRecordsWhy(srcs, err), opt.Lenient))
	}
	f.errs = summarizedSet(&failed, s)
	f.noteUnchecked(s)
	s.Notes = append(s.Notes, boundedNote(over, cost, budget, s))
	return true, f.writeSummary(w, name, s, nil)
}

// overMemory says whether the inputs, read whole, would take more than
// --max-memory, and then the budget of a bounded summary: no, said in a
// note of opt, when a flag given needs the records in memory. over says
// it in a sentence.
func (f *reportFlags) overMemory(ins []*boundedInput, opt *llmmetrics.Options) (over string, budget int, ok bool) {
	var size, need int64
	var names []string
	for _, in := range ins {
		size += in.size
		need += min(in.size, 1<<58) * in.factor()
		names = append(names, in.name)
	}
	limit := f.maxMemory.limit()
	if need <= limit {
		return "", 0, false
	}
	// The need, not the size, is what passes the limit: said, so that a
	// size below the limit ("(400 kB) … (1.0 MB)") does not read as a
	// contradiction.
	over = fmt.Sprintf("%s (%s) would take about %s in memory, more than --max-memory (%s)", strings.Join(names, " + "), megabytes(size), megabytes(need), megabytes(limit))
	if needs := f.needRecords(ins); needs != "" {
		opt.Notes = append(opt.Notes, over+", but "+needs+" needs its records there: it was read whole")
		return "", 0, false
	}
	return over, int(min(max(limit/2, minBudget), 1<<40)), true
}

// boundedNote is the note of a report of s summarized in bounded memory:
// what it did not compute names the load check only where the run's
// header gave a load to check.
func boundedNote(over string, cost bounded.Stats, budget int, s *llmmetrics.Summary) string {
	least := ""
	if budget == minBudget {
		least = fmt.Sprintf(" (a budget of %s, the least it is given, though half of --max-memory is less)", megabytes(minBudget))
	}
	load := ""
	if s.Header != nil && len(s.Header.Load) > 0 {
		load = ", the load check"
	}
	return fmt.Sprintf("bounded summary: %s; read in %d passes holding at most %s besides a batch of records%s; not computed: the workload, the client's distributions%s and TTFT by turn", over, cost.Passes, megabytes(int64(cost.Held)), least, load)
}

// needRecords names the first flag given that needs the records of ins
// in memory, or "" when none does.
func (f *reportFlags) needRecords(ins []*boundedInput) string {
	switch {
	case *f.lenient && *f.merge: // the merge's checks read the records set aside too
		return "--lenient"
	case *f.lenient && slices.ContainsFunc(ins, func(in *boundedInput) bool { return in.parquet }):
		return "--lenient" // a Parquet source stops at the first bad row
	case *f.warmup != "":
		return "--warmup"
	case *f.stratify != "":
		return "--stratify"
	case f.pics.wanted():
		return "--plot or --html"
	case *f.pics.spectrum != "":
		return "--spectrum"
	case f.replay.on:
		return "--otlp"
	case *f.plan.path != "":
		return "--plan"
	}
	return ""
}

// megabytes writes a size in bytes in MB, to one decimal, in kB below
// 1 MB (to one decimal below 10 kB, so that 1,024 and 1,406 bytes do not
// both read "1 kB"), or in bytes below 1 kB (never "0 kB" for a size
// that is not 0).
func megabytes(n int64) string {
	switch {
	case n < 1000:
		return fmt.Sprintf("%d bytes", n)
	case n < 1e4:
		return fmt.Sprintf("%.1f kB", float64(n)/1e3)
	}
	if n < 1e6 {
		return fmt.Sprintf("%d kB", (n+500)/1000)
	}
	return fmt.Sprintf("%.1f MB", float64(n)/1e6)
}

// noRecordsWhy returns err, or, for a file of no records whose end line
// says why (or that records were lost: TRUNCATED), that reason, as the
// report of the file read whole gives it (noRecordsOf).
func noRecordsWhy(srcs []bounded.Source, err error) error {
	if !errors.Is(err, llmmetrics.ErrNoRecords) || len(srcs) != 1 {
		return err
	}
	var end *llmmetrics.RunEnd
	srcs[0].Pass(func(b *llmmetrics.Run) error {
		end = cmp.Or(b.End, end)
		return nil
	})
	if end == nil {
		return err
	}
	return noRecordsOf(end)
}
