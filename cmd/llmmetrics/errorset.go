package main

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/llmmetrics/llmmetrics"
)

// An errorSet shows why the measured requests that failed failed, as
// vegeta's "Status Codes" and "Error Set" do: counts by kind (the HTTP
// status, or timeout, cancelled, or no HTTP status) and by message (cut to
// maxMessage characters), the most frequent first, at most maxMessages of
// them, each with the first request that had it.
type errorSet struct {
	Failed    int          `json:"failed"`
	ByStatus  []errorCount `json:"by_status"`
	ByMessage []errorCount `json:"by_message"`
	More      int          `json:"more_messages,omitempty"` // distinct messages not listed
}

type errorCount struct {
	Key   string `json:"key"`
	Count int    `json:"count"`
	First string `json:"first_id"`
}

const (
	maxMessage  = 160
	maxMessages = 8
)

// newErrorSet returns the error set of the measured records (warm-up
// left out), or nil when none failed.
func newErrorSet(recs []llmmetrics.Record) *errorSet {
	var status, message []errorCount
	add := func(list []errorCount, key, id string) []errorCount {
		for i := range list {
			if list[i].Key == key {
				list[i].Count++
				return list
			}
		}
		return append(list, errorCount{Key: key, Count: 1, First: id})
	}
	failed := 0
	for i := range recs {
		r := &recs[i]
		if r.Warmup || r.Status == llmmetrics.StatusOK {
			continue
		}
		failed++
		status = add(status, errorKind(r), r.ID)
		message = add(message, cut(r.Message), r.ID)
	}
	if failed == 0 {
		return nil
	}
	byCount := func(a, b errorCount) int { return cmp.Compare(b.Count, a.Count) }
	slices.SortStableFunc(status, byCount)
	slices.SortStableFunc(message, byCount)
	s := &errorSet{Failed: failed, ByStatus: status, ByMessage: message}
	if len(message) > maxMessages {
		s.ByMessage, s.More = message[:maxMessages], len(message)-maxMessages
	}
	return s
}

// errorSetOfFile returns the error set of a file already summarized
// without keeping its records (ReadOptions.Summarize): when the summary
// counts failures, the file is read again, keeping them. (Standard input,
// which cannot be read twice, is read keeping its records.)
func errorSetOfFile(name string, s *llmmetrics.Summary, lenient bool) *errorSet {
	if s.Requests.Failed == 0 || name == "standard input" {
		return nil
	}
	f, err := os.Open(name)
	if err != nil {
		return nil
	}
	defer f.Close()
	run, _, err := llmmetrics.ReadOptions{Lenient: lenient}.Read(f)
	if run == nil || err != nil && !errors.Is(err, llmmetrics.ErrRejected) {
		return nil
	}
	return newErrorSet(run.Records)
}

// errorKind names a failed record's kind: its HTTP status where its
// message begins with one (as observe writes them), else its status.
func errorKind(r *llmmetrics.Record) string {
	if rest, ok := strings.CutPrefix(r.Message, "HTTP "); ok {
		code, _, _ := strings.Cut(rest, ":")
		if n, err := strconv.Atoi(code); err == nil {
			return "HTTP " + strconv.Itoa(n)
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

// cut returns a message cut to maxMessage characters, on one line.
func cut(m string) string {
	m = strings.Join(strings.Fields(m), " ")
	if m == "" {
		return "(no message)"
	}
	if r := []rune(m); len(r) > maxMessage {
		return string(r[:maxMessage-1]) + "…"
	}
	return m
}

// write prints the error set for people.
func (s *errorSet) write(w io.Writer) {
	if s == nil {
		return
	}
	fmt.Fprintf(w, "\nerror set (%d measured requests failed):\n  by status:", s.Failed)
	for i, c := range s.ByStatus {
		sep := ","
		if i == 0 {
			sep = ""
		}
		fmt.Fprintf(w, "%s %s ×%d", sep, c.Key, c.Count)
	}
	fmt.Fprintln(w, "\n  by message (the first request with each in brackets):")
	for _, c := range s.ByMessage {
		fmt.Fprintf(w, "  %6d  %s [%s]\n", c.Count, c.Key, c.First)
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
