package conformance

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/llmmetrics/llmmetrics"
)

// Export writes the cases into dir (made if needed), for tools in any
// language:
//
//	cases.json        {"version", "cases": [...]}: every case, with its
//	                  requests' stream events (times in ns from the run's
//	                  epoch), options, expected figures (null: absent),
//	                  trap, section and arithmetic; one case a line
//	jsonl/ID.jsonl    each case's requests in the project's JSONL format
//	cases.csv         one row a case: id, options, trap, section
//	requests.csv      one row a request: its send, first and last text
//	                  chunk, number of text chunks, counts
//	expected.csv      one row a figure: case, figure, value ("absent")
//
// It overwrites those files and leaves others alone.
func Export(dir string) error {
	cs := Cases()
	if err := os.MkdirAll(filepath.Join(dir, "jsonl"), 0o755); err != nil {
		return err
	}
	var js bytes.Buffer
	fmt.Fprintf(&js, "{\"version\": %q,\n\"cases\": [\n", Version)
	for i, c := range cs {
		b, err := json.Marshal(c)
		if err != nil {
			return fmt.Errorf("case %s: %w", c.ID, err)
		}
		if i > 0 {
			js.WriteString(",\n")
		}
		js.Write(b)
	}
	js.WriteString("\n]}\n")
	files := map[string][]byte{"cases.json": js.Bytes()}

	for _, c := range cs {
		recs, err := c.Records()
		if err != nil {
			return fmt.Errorf("case %s: %w", c.ID, err)
		}
		var b bytes.Buffer
		if err := llmmetrics.WriteJSONL(&b, recs); err != nil {
			return fmt.Errorf("case %s: %w", c.ID, err)
		}
		files[filepath.Join("jsonl", c.ID+".jsonl")] = noUsage(b.Bytes(), c)
	}

	ns := func(d time.Duration) string { return strconv.FormatInt(int64(d), 10) }
	count := func(p *int) string {
		if p == nil {
			return ""
		}
		return strconv.Itoa(*p)
	}
	var cases, requests, expected [][]string
	cases = append(cases, []string{"case", "method", "percentiles", "window_ns", "warmup_requests",
		"slo_ttft_ns", "slo_tpot_ns", "slo_e2e_ns", "slo_max_gap_ns", "slo_strict", "trap", "section"})
	requests = append(requests, []string{"case", "id", "run", "status", "warmup", "start_ns", "sent_ns",
		"first_text_ns", "last_text_ns", "text_chunks", "prompt_tokens", "completion_tokens", "message"})
	expected = append(expected, []string{"case", "figure", "value"})
	for _, c := range cs {
		o := c.Options
		ps := ""
		for i, p := range o.Percentiles {
			if i > 0 {
				ps += " "
			}
			ps += strconv.FormatFloat(p, 'f', -1, 64)
		}
		slo := []string{"", "", "", "", ""}
		if s := o.SLO; s != nil {
			slo = []string{ns(s.TTFT), ns(s.TPOT), ns(s.E2E), ns(s.MaxGap), strconv.FormatBool(s.Strict)}
		}
		row := append([]string{c.ID, o.Method, ps, ns(o.Window), strconv.Itoa(o.WarmupRequests)}, slo...)
		cases = append(cases, append(row, c.Trap, c.Section))
		for _, r := range c.Requests {
			first, last := "", ""
			text := r.TextTimes()
			if len(text) > 0 {
				first, last = ns(text[0]), ns(text[len(text)-1])
			}
			requests = append(requests, []string{c.ID, r.ID, strconv.Itoa(r.Run), r.Status, strconv.FormatBool(r.Warmup),
				ns(r.Start), ns(r.Sent), first, last, strconv.Itoa(len(text)), count(r.PromptTokens), count(r.CompletionTokens), r.Message})
		}
		for _, name := range c.Expected.Names() {
			expected = append(expected, []string{c.ID, name, c.Expected[name].String()})
		}
	}
	for name, rows := range map[string][][]string{"cases.csv": cases, "requests.csv": requests, "expected.csv": expected} {
		var b bytes.Buffer
		w := csv.NewWriter(&b)
		if err := w.WriteAll(rows); err != nil {
			return err
		}
		files[name] = b.Bytes()
	}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// noUsage leaves completion_tokens out of the JSONL lines of the case's
// ok requests that had no usage, which is how the format says "no count"
// (WriteJSONL writes the record's 0).
func noUsage(jsonl []byte, c Case) []byte {
	lines := bytes.SplitAfter(jsonl, []byte("\n"))
	for i, r := range c.Requests {
		if r.CompletionTokens == nil && r.Status == "ok" && i < len(lines) {
			lines[i] = bytes.Replace(lines[i], []byte(`,"completion_tokens":0`), nil, 1)
		}
	}
	return bytes.Join(lines, nil)
}
