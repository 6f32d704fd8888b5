package main

import (
	"bufio"
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/internal/budget"
	"github.com/llmmetrics/llmmetrics/internal/synth"
)

// The built command's resident peak on a CSV of a million rows (54.5 MB,
// as the lessons' generator makes them: a fifth of the answers
// unstreamed, 2% failed), above what the process takes before it reads
// anything (its code and runtime, 25–27 MB: the most of three runs on a
// file of one row), is at most 1.25 times the file: 1.15 with the
// in-flight sweep reading the table's columns in place (1.20–1.22 while a
// row that was not plain had its csvrow.Row made on the heap), 1.25–1.29
// with a list of the requests' ends (8 bytes a row) beside the table, 1.33
// with the TTFT column copied as well. The same rows shuffled are held to
// the same (1.17; 1.75 when their starts and ends were listed whole, 16
// bytes a row, after SweepRows had held windows of them), and without
// sent_ms (39.9 MB, rows 14.6 bytes shorter) to 1.35 (1.25; 1.61 when the
// table kept a column of zeros for their sends, 8 bytes a row). Resident
// memory is counted by the kernel, not timed: the verdict does not depend
// on the machine's speed.
func TestReportResidentPeak(t *testing.T) {
	switch {
	case budget.Race:
		t.Skip("the resident peak is held for a build without the race detector")
	case testing.Short():
		t.Skip("not in -short: writes files of 40 to 55 MB")
	}
	dir := t.TempDir()
	recs := synth.Mixed(1_000_000, 1)
	small := filepath.Join(dir, "one.csv")
	writeCSVFile(t, small, &llmmetrics.Run{Records: recs[:1]})
	var base int64
	for range 3 {
		base = max(base, residentPeak(t, small))
	}
	shuffled := slices.Clone(recs)
	rand.New(rand.NewPCG(5, 5)).Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	for _, c := range []struct {
		name string
		run  *llmmetrics.Run
		most float64
	}{
		{"in send order", &llmmetrics.Run{Records: recs}, 1.25},
		{"shuffled", &llmmetrics.Run{Records: shuffled}, 1.25},
		{"without sent_ms", &llmmetrics.Run{Records: recs, NoSendTimes: true}, 1.35},
	} {
		big := filepath.Join(dir, "run.csv")
		writeCSVFile(t, big, c.run)
		st, err := os.Stat(big)
		if err != nil {
			t.Fatal(err)
		}
		peak := residentPeak(t, big)
		ratio := float64(peak-base) / float64(st.Size())
		t.Logf("%s, file %.1f MB: peak %.1f MB, %.1f MB before reading, %.2f times the file above it", c.name, mb(st.Size()), mb(peak), mb(base), ratio)
		if ratio > c.most {
			t.Errorf("report --json takes %.1f MB above its %.1f MB at rest for a %.1f MB CSV %s: %.2f times the file, above %.2f", mb(peak-base), mb(base), mb(st.Size()), c.name, ratio, c.most)
		}
	}
}

// writeCSVFile writes a run's records to a CSV file, without sent_ms when
// the run has no send times.
func writeCSVFile(t *testing.T, name string, run *llmmetrics.Run) {
	t.Helper()
	f, err := os.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	if err := run.WriteCSV(w); err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// residentPeak runs report --json on a file and returns the process's
// resident peak in bytes: its VmHWM, read while it runs (the high-water
// mark of its own memory since its exec). The kernel's ru_maxrss would
// not do: a child started by vfork, as os/exec starts it, inherits the
// test process's peak in it. The last reading may come a moment before
// the exit, which can only make the peak read low.
func residentPeak(t *testing.T, file string) int64 {
	t.Helper()
	cmd := exec.Command(binary(t), "report", "--json", file)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	status := fmt.Sprintf("/proc/%d/status", cmd.Process.Pid)
	var peak int64
	for {
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("report --json %s: %v\n%s", file, err, out.Bytes())
			}
			if peak == 0 {
				t.Skip("no VmHWM in /proc: not Linux, or the process ended before it was read")
			}
			return peak
		default:
		}
		if kb, ok := highWater(status); ok {
			peak = max(peak, kb<<10)
		}
		time.Sleep(time.Millisecond)
	}
}

// highWater returns the VmHWM of a /proc status file, in KiB.
func highWater(status string) (int64, bool) {
	b, err := os.ReadFile(status)
	if err != nil {
		return 0, false
	}
	_, rest, ok := bytes.Cut(b, []byte("VmHWM:"))
	if !ok {
		return 0, false
	}
	line, _, _ := bytes.Cut(rest, []byte("\n"))
	kb, err := strconv.ParseInt(string(bytes.TrimSpace(bytes.TrimSuffix(bytes.TrimSpace(line), []byte("kB")))), 10, 64)
	return kb, err == nil
}

func mb(n int64) float64 { return float64(n) / 1e6 }
