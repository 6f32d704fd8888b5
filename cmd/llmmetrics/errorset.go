package main

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/internal/plural"
)

// An errorSet shows why the requests that failed failed, as vegeta's
// "Status Codes" and "Error Set" do: counts by kind (the HTTP status, or
// timeout, cancelled, or no HTTP status) and by message (cut to maxMessage
// characters), the most frequent first, at most maxMessages of them, each
// with the first request that had it. The measured requests are tallied,
// and the preflight requests (the test or sizing requests sent before the
// load, whose failure stops a run before it began) apart, marked so.
type errorSet struct {
	Failed    int          `json:"failed"`                     // measured requests that failed
	Preflight int          `json:"preflight_failed,omitempty"` // preflight requests that failed
	ByStatus  []errorCount `json:"by_status"`
	ByMessage []errorCount `json:"by_message"`
	More      int          `json:"more_messages,omitempty"` // distinct messages not listed
}

type errorCount struct {
	Key       string `json:"key"`
	Count     int    `json:"count"`
	First     string `json:"first_id"`
	Preflight bool   `json:"preflight,omitempty"` // a tally of preflight requests, not of measured ones
}

const (
	maxMessage  = 160
	maxMessages = 8
)

// newErrorSet returns the error set of the measured and preflight records
// (warm-up left out), or nil when none failed.
func newErrorSet(recs []llmmetrics.Record) *errorSet {
	var t errorTally
	for i := range recs {
		t.add(recs[i])
	}
	return t.set()
}

// An errorTally gathers an error set a record at a time, holding the
// tallies only: the failed records of a file summarized without keeping
// its records (ReadOptions.SummarizeFailed) are added as they come.
type errorTally struct {
	failed, preflight int
	status, message   []errorCount
	// The last message cut, and what it was cut to: failures of one cause
	// come in runs of one message, which cut (a few regular expressions)
	// then reads once.
	lastMessage, lastCut string
	cutOnce              bool
}

// add tallies r when it failed and is measured or preflight.
func (t *errorTally) add(r llmmetrics.Record) {
	if r.Warmup && !r.Preflight || r.Unfinished || r.Status == llmmetrics.StatusOK {
		return
	}
	if r.Preflight {
		t.preflight++
	} else {
		t.failed++
	}
	t.status = countIn(t.status, errorKind(&r), r.ID, r.Preflight)
	if !t.cutOnce || r.Message != t.lastMessage {
		t.lastMessage, t.lastCut, t.cutOnce = r.Message, cut(r.Message), true
	}
	t.message = countIn(t.message, t.lastCut, r.ID, r.Preflight)
}

// countIn counts key in list, where it is first seen in request id.
func countIn(list []errorCount, key, id string, pre bool) []errorCount {
	for i := range list {
		if list[i].Key == key && list[i].Preflight == pre {
			list[i].Count++
			return list
		}
	}
	return append(list, errorCount{Key: key, Count: 1, First: id, Preflight: pre})
}

// set returns the error set of the records added, or nil when none failed.
func (t *errorTally) set() *errorSet {
	if t.failed+t.preflight == 0 {
		return nil
	}
	s := &errorSet{Failed: t.failed, Preflight: t.preflight}
	status, message := t.status, t.message
	byCount := func(a, b errorCount) int { return cmp.Compare(b.Count, a.Count) }
	slices.SortStableFunc(status, byCount)
	slices.SortStableFunc(message, byCount)
	s.ByStatus, s.ByMessage = status, message
	if len(message) > maxMessages {
		s.ByMessage, s.More = message[:maxMessages], len(message)-maxMessages
	}
	return s
}

// summarizedSet returns the error set of the failed records of a file
// summarized without keeping its records, tallied in t: when the summary
// counts failures, or the run measured nothing after its preflight
// requests (one of which may have failed and stopped it); else nil.
func summarizedSet(t *errorTally, s *llmmetrics.Summary) *errorSet {
	a := s.Requests
	stoppedEarly := a.Preflight > 0 && a.OK+a.ZeroToken+a.Failed == 0
	if a.Failed == 0 && !stoppedEarly {
		return nil
	}
	return t.set()
}

// errorKind names a failed record's kind: its HTTP status where its
// message begins with one (as observe writes them: "HTTP 500: …",
// "HTTP 200, error in stream: …" for an error the server sent inside its
// stream, and "HTTP 200, the stream was cut off …" for a stream that
// failed after its head), else its status.
func errorKind(r *llmmetrics.Record) string {
	if rest, ok := strings.CutPrefix(r.Message, "HTTP "); ok {
		digits := len(rest) - len(strings.TrimLeft(rest, "0123456789"))
		if n, err := strconv.Atoi(rest[:digits]); err == nil {
			kind := "HTTP " + strconv.Itoa(n)
			switch after := rest[digits:]; {
			case strings.HasPrefix(after, ", error in stream"):
				kind += ", error in stream"
			case strings.HasPrefix(after, ", "): // the stream failed after the head: cut off, dropped
				kind += ", stream failed"
			}
			return kind
		}
	}
	switch r.Status {
	case llmmetrics.StatusTimeout:
		return "timeout"
	case llmmetrics.StatusCancelled:
		return "cancelled"
	}
	return "error without an HTTP status"
}

// cut returns a message cut to maxMessage characters, on one line, with
// what differs between the connections of one cause left out (see
// oneCause).
func cut(m string) string {
	m = strings.Join(strings.Fields(oneCause(withoutURL(m))), " ")
	switch m {
	case "":
		return "(no message)"
	case "EOF": // net/http's word for a connection closed before the response's head
		return "EOF: the server closed the connection before its answer began"
	}
	if r := []rune(m); len(r) > maxMessage {
		return string(r[:maxMessage-1]) + "…"
	}
	return m
}

// withoutURL drops the `Post "http://…": ` that net/http puts before an
// error of a request (every request of a run has the same method and
// URL), so that one cause is one group whether the transport or the body
// reader said it.
func withoutURL(m string) string {
	method, rest, ok := strings.Cut(m, ` "`)
	if !ok || method == "" || strings.IndexFunc(method, func(r rune) bool { return !unicode.IsLetter(r) }) >= 0 {
		return m // net/http's url.Error says "Post", "Get": a word of letters
	}
	if _, after, ok := strings.Cut(rest, `": `); ok {
		return after
	}
	return m
}

// perConnection match what differs between requests that failed of one
// cause: the client's address and port of a connection (Go's net.OpError:
// "read tcp 127.0.0.1:53422->127.0.0.1:8080: read: connection reset by
// peer" keeps the server's end, "read tcp 127.0.0.1:8080: …"), an HTTP/2
// stream's number, and the count of events before a cut stream.
var perConnection = []struct {
	re   *regexp.Regexp
	with string
}{
	{regexp.MustCompile(`\b((?:tcp|udp)[46]?) \S+->(\S+?): `), "$1 $2: "},
	{regexp.MustCompile(`\bstream ID \d+`), "stream ID …"},
	{regexp.MustCompile(` \(text-bearing events before the cut: \d+\)`), ""},
}

// oneCause returns m without what differs between the connections or
// requests that failed of one cause, so that one cause is one line.
func oneCause(m string) string {
	for _, p := range perConnection {
		m = p.re.ReplaceAllString(m, p.with)
	}
	return m
}

// write prints the error set for people; a preflight tally is marked so.
func (s *errorSet) write(w io.Writer) {
	if s == nil {
		return
	}
	pre := plural.Of(s.Preflight, "preflight request")
	switch {
	case s.Preflight == 0:
		fmt.Fprintf(w, "\nerror set (%s failed):\n  by status:", plural.Of(s.Failed, "measured request"))
	case s.Failed == 0:
		fmt.Fprintf(w, "\nerror set (%s failed, before the load):\n  by status:", pre)
	default:
		fmt.Fprintf(w, "\nerror set (%s failed, and %s):\n  by status:", plural.Of(s.Failed, "measured request"), pre)
	}
	for i, c := range s.ByStatus {
		sep := ","
		if i == 0 {
			sep = ""
		}
		kind := c.Key
		if c.Preflight {
			kind = "preflight: " + kind
		}
		fmt.Fprintf(w, "%s %s ×%d", sep, kind, c.Count)
	}
	fmt.Fprintln(w, "\n  by message (the first request with each in brackets):")
	for _, c := range s.ByMessage {
		first := c.First
		if c.Preflight {
			first += ", a preflight request"
		}
		fmt.Fprintf(w, "  %6d  %s [%s]\n", c.Count, c.Key, first)
	}
	if s.More > 0 {
		fmt.Fprintf(w, "          and %d other messages\n", s.More)
	}
}

// withField adds key: v to a JSON object.
func withField(obj []byte, key string, v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	obj = []byte(strings.TrimRight(string(obj), " \n"))
	if len(obj) < 2 || obj[len(obj)-1] != '}' {
		return nil, fmt.Errorf("not a JSON object")
	}
	k, _ := json.Marshal(key)
	sep := ","
	if strings.TrimSpace(string(obj[1:len(obj)-1])) == "" {
		sep = ""
	}
	out := append([]byte{}, obj[:len(obj)-1]...)
	out = append(out, sep...)
	out = append(out, k...)
	out = append(out, ':')
	out = append(out, b...)
	return append(out, '}'), nil
}
