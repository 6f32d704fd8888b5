package main

import (
	"crypto/rand"
	"errors"
	"flag"
	"fmt"
	"log"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/live"
)

// recording is what the --record flags say: the run file the gateway
// writes the calls it records to, in llmmetrics' own format, so that
// llmmetrics report and diff read production as a run and llmmetrics run
// --replay sends its arrivals and lengths to a candidate server.
type recording struct {
	path     string
	messages bool
}

func (r *recording) define(fs *flag.FlagSet) {
	fs.StringVar(&r.path, "record", "", "write every recorded call to `file` (a new one) in llmmetrics' run format, without prompt text, for llmmetrics report, diff and run --replay (give --include-usage, so that every length is known); the end line is written on SIGINT or SIGTERM")
	fs.BoolVar(&r.messages, "record-messages", false, "with --record: write failures' messages, the server's words, which may quote the request (without it, their error.type)")
}

// recordFile is the --record file and the sink writing it.
type recordFile struct {
	path string
	f    *os.File
	sink *live.RecordSink
}

// openRecord creates the --record file and writes its header: the
// records' send times are measured from start, the Transport's epoch.
// It returns nil without --record.
func openRecord(c config, start time.Time) (*recordFile, error) {
	if c.record.path == "" {
		if c.record.messages {
			return nil, errors.New("--record-messages belongs to --record")
		}
		return nil, nil
	}
	f, err := os.OpenFile(c.record.path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return nil, fmt.Errorf("--record: %w (the gateway writes a new file)", err)
	}
	host, _ := os.Hostname()
	h := llmmetrics.RunHeader{Tool: "llmmetrics examples/gateway", ID: rand.Text(), GoVersion: runtime.Version(), Host: host, Target: c.upstream, Start: start,
		Load: map[string]string{"gateway": c.listen}, Flags: map[string]string{
			"upstream": c.upstream, "listen": c.listen, "models": strings.Join(c.models, ","), "include-usage": fmt.Sprint(c.includeUsage),
			"record": c.record.path, "record-messages": fmt.Sprint(c.record.messages),
		}}
	if len(c.models) == 1 {
		h.Model = c.models[0]
	}
	if c.slo != nil {
		h.Flags["slo"] = c.slo.String()
	}
	sink, err := live.NewRecordSink(f, h, live.RecordOptions{Messages: c.record.messages})
	if err != nil {
		f.Close()
		os.Remove(c.record.path)
		return nil, fmt.Errorf("--record %s: %w", c.record.path, err)
	}
	return &recordFile{path: c.record.path, f: f, sink: sink}, nil
}

// close writes the end line and closes the file, saying what was not
// written.
func (r *recordFile) close() error {
	err := r.sink.Close()
	if cerr := r.f.Close(); err == nil {
		err = cerr
	}
	if n := r.sink.NotWritten(); n != (live.NotWritten{}) {
		log.Printf("gateway: --record %s: records not written: %d dropped (the queue was full), %d invalid, %d after the end line", r.path, n.Dropped, n.Rejected, n.Late)
	}
	if err != nil {
		return fmt.Errorf("--record %s: %w", r.path, err)
	}
	return nil
}
