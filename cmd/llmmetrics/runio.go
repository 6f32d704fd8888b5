package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/cmd/llmmetrics/internal/earlysignal"
	"github.com/llmmetrics/llmmetrics/observe"
)

// interrupts turns SIGINT, SIGTERM and SIGHUP into the end of sending: the
// first ends ctx (the run stops sending and gives the requests in flight
// their grace), the second closes abort (the grace ends at once). Stop
// (a reason other than a signal, such as --max-error-rate) ends ctx too.
type interrupts struct {
	ctx    context.Context
	abort  chan struct{}
	cancel context.CancelFunc
	ch     chan os.Signal
	done   chan struct{}

	mu   sync.Mutex
	by   string // what ended the sending early: a signal's name or a flag
	then string // what the first signal does now (Then)
}

var signalNames = map[os.Signal]string{syscall.SIGINT: "SIGINT", syscall.SIGTERM: "SIGTERM", syscall.SIGHUP: "SIGHUP"}

// then says what happens after the first signal (Then changes it). The
// signals the run command caught since its process began (earlysignal)
// are handled now, as if they came now.
func catchInterrupts(stderr io.Writer, then string) *interrupts {
	ctx, cancel := context.WithCancel(context.Background())
	in := &interrupts{ctx: ctx, cancel: cancel, abort: make(chan struct{}), ch: earlysignal.Take(), done: make(chan struct{}), then: then}
	if in.ch == nil { // not caught since the process began (earlysignal): caught from now on
		in.ch = make(chan os.Signal, 4)
		signal.Notify(in.ch, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	}
	go func() {
		n := 0
		for {
			select {
			case s := <-in.ch:
				n++
				switch n {
				case 1:
					// Said before the sending stops, so that a run that
					// then ends at once has said it.
					in.mu.Lock()
					then := in.then
					in.mu.Unlock()
					fmt.Fprintf(stderr, "\nllmmetrics: %s: sending stopped; %s\n", signalNames[s], then)
					in.Stop(signalNames[s])
				case 2:
					close(in.abort)
					fmt.Fprintf(stderr, "llmmetrics: %s: the requests still in flight are cancelled\n", signalNames[s])
				}
			case <-in.done:
				return
			}
		}
	}()
	return in
}

// graceNote says what the first signal leaves to requests in flight.
func graceNote(grace time.Duration) string {
	if grace <= time.Nanosecond { // --grace 0s (see runflags.go)
		return "requests in flight are cancelled at once (--grace 0s; a second signal changes nothing)"
	}
	return fmt.Sprintf("requests in flight have %v to finish (a second signal ends the wait at once)", grace)
}

// beforeLoadNote says what the first signal does before the load begins
// (while the server is asked what it is, the test or sizing requests are
// sent, or --start-at is awaited): no grace, since nothing of the load is
// in flight.
const beforeLoadNote = "the load has not begun: a test or sizing request in flight is cancelled at once, and the run ends with nothing measured"

// Then sets what the first signal does from now on, as it will say.
func (in *interrupts) Then(then string) {
	in.mu.Lock()
	in.then = then
	in.mu.Unlock()
}

// Stop ends the sending for a reason, once.
func (in *interrupts) Stop(by string) {
	in.mu.Lock()
	if in.by == "" {
		in.by = by
	}
	in.mu.Unlock()
	in.cancel()
}

// By returns what ended the sending early, "" if nothing did.
func (in *interrupts) By() string {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.by
}

func (in *interrupts) release() {
	signal.Stop(in.ch)
	close(in.done)
	in.cancel()
}

// recordWriter writes a run's records as each request ends: the JSONL file
// (--out), its header first and its end line last, and the server timings
// (--timings); it keeps every result for the report. Each output is
// written on its own: a write error stops the writing of that output
// alone, is kept with the file's name, and is returned by finish; the
// other output, the run and its report go on.
type recordWriter struct {
	mu               sync.Mutex
	out, timings     *os.File
	outBuf           *bufio.Writer
	outPath, timPath string
	results          []*observe.Result
	written          int // records in --out
	timWritten       int // records whose timings went to --timings (with or without a line)
	outErr, timErr   error
	created          []string // the outputs check created, removed when the run stops before it sends
}

// removeCreated removes the outputs the check created: the run stopped
// before it sent anything, and an empty file would read as a run.
func (w *recordWriter) removeCreated() {
	for _, p := range w.created {
		os.Remove(p)
	}
}

// add keeps a finished request and writes it out.
func (w *recordWriter) add(res *observe.Result) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.results = append(w.results, res)
	one := []*observe.Result{res}
	if w.out != nil && w.outErr == nil {
		err := observe.WriteJSONL(w.outBuf, one)
		if err == nil {
			err = w.outBuf.Flush()
		}
		if err != nil {
			w.outErr = writeFailed(w.outPath, err, w.written)
		} else {
			w.written++
		}
	}
	if w.timings != nil && w.timErr == nil {
		if _, err := observe.WriteTimings(w.timings, one); err != nil {
			w.timErr = writeFailed(w.timPath, err, w.timWritten)
		} else {
			w.timWritten++
		}
	}
}

// writeFailed is the error of an output whose writing stopped after n
// records.
func writeFailed(path string, err error, n int) error {
	return fmt.Errorf("writing %s: %w (the records after the first %d were not written; the report covers them all)", path, err, n)
}

// header writes the run header, first; an error (a full disk) stops the
// run before anything is sent.
func (w *recordWriter) header(h *llmmetrics.RunHeader) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.out == nil {
		return nil
	}
	h.Ends = true
	err := h.WriteLine(w.outBuf)
	if err == nil {
		err = w.outBuf.Flush()
	}
	if err != nil {
		w.outErr = fmt.Errorf("writing %s: %w", w.outPath, err)
	}
	return w.outErr
}

// finish writes the end line and closes the files. Without --out, the
// end line (for the report) counts every record kept. It returns the
// error of each output that failed.
func (w *recordWriter) finish(end *llmmetrics.RunEnd) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.out == nil {
		end.Written = len(w.results)
	}
	if w.out != nil {
		if w.outErr == nil {
			end.Written = w.written
			err := end.WriteLine(w.outBuf)
			if err == nil {
				err = w.outBuf.Flush()
			}
			if err != nil {
				w.outErr = writeFailed(w.outPath, err, w.written)
			}
		}
		if err := w.out.Close(); err != nil && w.outErr == nil {
			w.outErr = writeFailed(w.outPath, err, w.written)
		}
		w.out = nil
	}
	if w.timings != nil {
		if err := w.timings.Close(); err != nil && w.timErr == nil {
			w.timErr = writeFailed(w.timPath, err, w.timWritten)
		}
		w.timings = nil
	}
	return errors.Join(w.outErr, w.timErr)
}

// all returns every result kept, in the order they ended.
func (w *recordWriter) all() []*observe.Result {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.results
}

// outputs are the files a run writes, checked before the first request.
type outputs struct {
	out, timings string
	proms        []string // the scrapes beside --out, with --scrape
}

// runOutputs lists the files a load run will write.
func (f *runFlags) runOutputs() outputs {
	o := outputs{out: *f.out, timings: *f.timings}
	if *f.out != "" && *f.scrape != "" {
		base := strings.TrimSuffix(*f.out, ".jsonl")
		o.proms = []string{base + ".before.prom", base + ".after.prom"}
	}
	return o
}

// check refuses outputs that are the same file as each other or as an
// input, and an existing file without force (a usage mistake, told in one
// line: status 2); then opens every output, so that a path that cannot be
// written is found before anything is sent (status 1). Every output is
// opened before any is truncated, and a failure removes the files the
// check created: a failing output leaves the others as they were. It
// returns a writer for the records, and the opened scrape files.
func (o outputs) check(inputs map[string]string, force bool) (*recordWriter, []*os.File, error) {
	var all []namedPath
	if o.out != "" {
		all = append(all, namedPath{"--out", o.out})
	}
	if o.timings != "" {
		all = append(all, namedPath{"--timings", o.timings})
	}
	for _, p := range o.proms {
		all = append(all, namedPath{"--out's scrape file", p})
	}
	files, created, err := openOutputs(all, inputs, force)
	if err != nil {
		return nil, nil, err
	}
	w := &recordWriter{outPath: o.out, timPath: o.timings, created: created}
	var proms []*os.File
	for i, n := range all {
		switch n.flag {
		case "--out":
			w.out, w.outBuf = files[i], bufio.NewWriter(files[i])
		case "--timings":
			w.timings = files[i]
		default:
			proms = append(proms, files[i])
		}
	}
	return w, proms, nil
}

// namedPath is an output's path with the flag that named it.
type namedPath struct{ flag, path string }

// openOutputs checks the outputs (see check) and opens them, in order,
// each emptied only once all are open; it returns them and the paths of
// those it created.
func openOutputs(all []namedPath, inputs map[string]string, force bool) ([]*os.File, []string, error) {
	var ins []namedPath
	for flag, p := range inputs {
		if p != "" {
			ins = append(ins, namedPath{flag, p})
		}
	}
	for i, a := range all {
		for _, b := range all[:i] {
			if samePath(a.path, b.path) {
				return nil, nil, valueError(fmt.Sprintf("%s and %s are the same file, %s", b.flag, a.flag, a.path))
			}
		}
		for _, in := range ins {
			if samePath(a.path, in.path) {
				return nil, nil, valueError(fmt.Sprintf("%s %s is the input %s: it would be overwritten", a.flag, a.path, in.flag))
			}
		}
		st, err := os.Stat(a.path)
		switch {
		case err == nil && st.IsDir():
			return nil, nil, valueError(fmt.Sprintf("%s %s is a directory", a.flag, a.path))
		case err == nil && !force && st.Mode().IsRegular(): // a device or a FIFO (/dev/null) is written as it is
			return nil, nil, valueError(fmt.Sprintf("%s %s exists; --force overwrites it", a.flag, a.path))
		}
	}
	// Open every output without truncating it; a new one is created, and
	// removed again when a later one cannot be opened.
	var files []*os.File
	var created []string
	for _, n := range all {
		_, statErr := os.Stat(n.path)
		f, err := os.OpenFile(n.path, os.O_WRONLY|os.O_CREATE, 0o644)
		if err != nil {
			for _, f := range files {
				f.Close()
			}
			for _, p := range created {
				os.Remove(p)
			}
			return nil, nil, fmt.Errorf("%s: %w", n.flag, err)
		}
		if errors.Is(statErr, fs.ErrNotExist) {
			created = append(created, n.path)
		}
		files = append(files, f)
	}
	for i, f := range files {
		if st, err := f.Stat(); err == nil && st.Mode().IsRegular() { // a device (/dev/null) is not truncated
			if err := f.Truncate(0); err != nil {
				for _, f := range files {
					f.Close()
				}
				return nil, nil, fmt.Errorf("%s: %w", all[i].flag, err)
			}
		}
	}
	return files, created, nil
}

// samePath reports whether two paths name one file: the same cleaned
// absolute path, or the same existing file.
func samePath(a, b string) bool {
	if a == "-" || b == "-" {
		return false
	}
	aa, err1 := filepath.Abs(a)
	bb, err2 := filepath.Abs(b)
	if err1 == nil && err2 == nil && aa == bb {
		return true
	}
	sa, err1 := os.Stat(a)
	sb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(sa, sb)
}

// endpointPaths are the paths appended to a base URL for each API.
var endpointPaths = map[observe.API]string{
	observe.Chat:        "/v1/chat/completions",
	observe.Completions: "/v1/completions",
	observe.Responses:   "/v1/responses",
	observe.Ollama:      "/api/chat",
	observe.TGI:         "/generate_stream",
}

// endpoint checks --url and completes a base URL: it needs an http or
// https scheme and a host; a URL whose path names no endpoint and is empty,
// "/" or ends in /v1 gets the endpoint path of api appended. It returns
// the URL to send to and, when it appended a path, a sentence saying so.
func endpoint(raw string, api observe.API, apiGiven bool) (string, string, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return "", "", badURL(raw)
	}
	if _, known := observe.APIOf(u.Path); known {
		return raw, "", nil
	}
	path := strings.TrimSuffix(u.Path, "/")
	if path != "" && !strings.HasSuffix(path, "/v1") {
		return raw, "", nil // a path of the user's own: sent as given
	}
	add := endpointPaths[api]
	if strings.HasSuffix(path, "/v1") && strings.HasPrefix(add, "/v1/") {
		add = strings.TrimPrefix(add, "/v1")
	}
	u.Path = path + add
	how := "the API's"
	if apiGiven {
		how = "--api's"
	}
	return u.String(), fmt.Sprintf("--url %s is a base URL: %s endpoint path %s was appended (%s)", raw, how, add, u.String()), nil
}

// badURL refuses a --url that is not an http or https URL with a host,
// in one line (status 2).
func badURL(raw string) error {
	rest := strings.TrimPrefix(raw, "//")
	if _, after, ok := strings.Cut(rest, "://"); ok {
		rest = after // another scheme: suggest http with the rest
	}
	if rest == "" || strings.HasPrefix(rest, "/") {
		rest = "127.0.0.1:8000" + rest
	}
	return valueError(fmt.Sprintf("--url %q: want an http:// or https:// URL with a host, e.g. http://%s", raw, rest))
}

// errAllFailed marks a run in which every measured request failed (a
// signal's cancellations included): exit status 4, after the report.
var errAllFailed = errors.New("every measured request failed")

// errNothingMeasured marks a run whose load began but sent no measured
// request (a signal during the warm-up): exit status 4, after the report.
var errNothingMeasured = errors.New("nothing was measured")

// errTooManyFailures marks a run stopped by --max-error-rate: exit status
// 4, after the report.
var errTooManyFailures = errors.New("too many failures")

// errNotBegun marks a run a signal interrupted before its load began (the
// test or sizing requests, --start-at): nothing was measured, and it exits
// with status 5, so that a script does not take it for a run.
var errNotBegun = errors.New("before the load began: nothing was measured")

// earlySignal returns the error of a signal the run command caught since
// its process began (earlysignal), for a run that will catch none (a dry
// run): nothing was measured, as for any signal before the load; nil when
// none came. Signals after it end the process as they would any command.
func earlySignal() error {
	ch := earlysignal.Take()
	if ch == nil {
		return nil
	}
	signal.Stop(ch)
	select {
	case s := <-ch:
		return fmt.Errorf("interrupted by %s %w", signalNames[s], errNotBegun)
	default:
		return nil
	}
}
