// Command pooled writes the pooled per-request arrays of the benchmark run
// (internal/synth.Run) as raw little-endian float64 seconds, one file per
// metric, so that numpy can be timed on exactly the arrays Summarize works
// on:
//
//	go run ./bench/pooled -records 1000000 -chunks 128 -out DIR
//
// It writes DIR/ttft.f64, tpot.f64, e2e.f64 and itl.f64.
package main

import (
	"bufio"
	"encoding/binary"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"time"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/internal/synth"
)

func main() {
	n := flag.Int("records", 1_000_000, "records")
	k := flag.Int("chunks", 128, "chunks per record")
	out := flag.String("out", ".", "output folder")
	flag.Parse()
	if err := write(*out, synth.Run(*n, *k)); err != nil {
		fmt.Fprintln(os.Stderr, "pooled:", err)
		os.Exit(1)
	}
}

func write(dir string, recs []llmmetrics.Record) error {
	files := map[string]*bufio.Writer{}
	for _, name := range []string{"ttft", "tpot", "e2e", "itl"} {
		f, err := os.Create(filepath.Join(dir, name+".f64"))
		if err != nil {
			return err
		}
		defer f.Close()
		files[name] = bufio.NewWriterSize(f, 1<<20)
	}
	put := func(name string, d time.Duration) {
		var b [8]byte
		binary.LittleEndian.PutUint64(b[:], math.Float64bits(d.Seconds()))
		files[name].Write(b[:]) // a write error is kept by the Writer and returned by Flush
	}
	for i := range recs {
		r := &recs[i]
		ttft, err := r.TTFT()
		if err != nil {
			return err
		}
		e2e, _ := r.E2E()
		tpot, _ := r.TPOT()
		gaps, _ := r.AppendGaps(nil)
		put("ttft", ttft)
		put("e2e", e2e)
		put("tpot", tpot)
		for _, g := range gaps {
			put("itl", g)
		}
	}
	for name, w := range files {
		if err := w.Flush(); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
	}
	return nil
}
