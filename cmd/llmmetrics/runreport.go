package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"time"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/cmd/llmmetrics/internal/gpu"
	"github.com/llmmetrics/llmmetrics/drive"
	"github.com/llmmetrics/llmmetrics/server"
)

// scrape fetches and parses the server's metrics, keeping the raw text.
func scrape(u string) (*server.Scrape, []byte, error) {
	client := &http.Client{Timeout: 10 * time.Second}
	resp, err := client.Get(u)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, nil, fmt.Errorf("scraping %s: HTTP %d", u, resp.StatusCode)
	}
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 256<<20))
	if err != nil {
		return nil, nil, err
	}
	s, err := server.ParseScrape(bytes.NewReader(raw))
	return s, raw, err
}

// writeScrapes writes the two scrapes of the measured part into the files
// opened beside the records (out without .jsonl, then .before.prom and
// .after.prom), which the header names, and puts the time between them in
// the end line's load, so that sweep reports the server's figures of the
// run. The file of a scrape that failed is removed, so that it never
// reads as an empty scrape.
func writeScrapes(files []*os.File, before, after []byte, o *drive.Outcome, end *llmmetrics.RunEnd) error {
	if len(files) != 2 {
		return nil
	}
	for i, raw := range [][]byte{before, after} {
		if raw == nil {
			os.Remove(files[i].Name())
			continue
		}
		if _, err := files[i].Write(raw); err != nil {
			return fmt.Errorf("writing %s: %w", files[i].Name(), err)
		}
	}
	if before == nil || after == nil {
		return nil
	}
	end.Load = map[string]string{"scrape_elapsed": o.MeasureEnd.Sub(o.MeasureStart).String()}
	return nil
}

// serverSide builds the server report of the measured part, with the
// known-output check on the measured records.
func serverSide(before, after *server.Scrape, scrapeErr error, out *drive.Outcome, recs []llmmetrics.Record) (*server.Report, error) {
	if scrapeErr != nil {
		return nil, fmt.Errorf("--scrape: %w", scrapeErr)
	}
	if before == nil || after == nil {
		return nil, errors.New("--scrape: the measured part was not scraped at both ends")
	}
	w, err := server.Diff(before, after, out.MeasureEnd.Sub(out.MeasureStart), nil)
	if err != nil {
		return nil, err
	}
	rep := &server.Report{Window: w}
	if k, err := server.CheckKnownOutput(w, recs); err == nil {
		rep.Known = &k
	}
	return rep, nil
}

// telemetry is the GPU telemetry of a load run's measured part: one
// level.
type telemetry struct {
	Level string        `json:"level"`
	GPUs  []gpu.Summary `json:"gpus"`
	Note  string        `json:"note,omitempty"`
}

// levelName names a run's load level.
func levelName(p drive.Plan) string {
	if p.Rate > 0 {
		return fmt.Sprintf("open loop, %v requests/s", p.Rate)
	}
	return fmt.Sprintf("closed loop, concurrency %d", p.Concurrency)
}

// writeRunReport writes the client report, then the server side and the
// GPU telemetry where there are any; as JSON, the client report alone, or
// {"client": …, "server": …, "gpu": …} with the others. A server side
// that could not be built (srvErr, a failed scrape) is said to be absent,
// with why ("server_absent" in JSON).
func writeRunReport(w io.Writer, s *llmmetrics.Summary, srv *server.Report, srvErr error, tele *telemetry, errs *errorSet, turns []turnRow, lc *loadCheck, asJSON bool) error {
	if asJSON {
		b, err := s.MarshalJSON()
		if err != nil {
			return err
		}
		if lc != nil {
			if b, err = withField(b, "load_check", lc); err != nil {
				return err
			}
		}
		if errs != nil {
			if b, err = withField(b, "error_set", errs); err != nil {
				return err
			}
		}
		if turns != nil {
			if b, err = withField(b, "ttft_by_turn", turns); err != nil {
				return err
			}
		}
		if srv != nil || srvErr != nil || tele != nil {
			obj := map[string]any{"client": json.RawMessage(b)}
			if srv != nil {
				obj["server"] = srv
			}
			if srvErr != nil {
				obj["server_absent"] = srvErr.Error()
			}
			if tele != nil {
				obj["gpu"] = tele
			}
			if b, err = json.Marshal(obj); err != nil {
				return err
			}
		}
		_, err = fmt.Fprintf(w, "%s\n", b)
		return err
	}
	fmt.Fprint(w, "llmmetrics run\n\n")
	if lc != nil {
		lc.writeWarnings(w)
	}
	if err := s.WriteTable(w); err != nil {
		return err
	}
	if lc != nil {
		lc.write(w)
	}
	errs.write(w)
	writeTurns(w, turns)
	if srv != nil {
		fmt.Fprintln(w)
		if err := srv.WriteTable(w); err != nil {
			return err
		}
	}
	if srvErr != nil {
		fmt.Fprintf(w, "\nserver side: absent, %s\n", srvErr)
	}
	if tele != nil {
		fmt.Fprintf(w, "\nGPU telemetry over the measured part (%s):\n", tele.Level)
		if len(tele.GPUs) == 0 {
			fmt.Fprintln(w, "  no samples in the measured part")
		}
		for _, g := range tele.GPUs {
			fmt.Fprintf(w, "  %s\n", g)
		}
		if tele.Note != "" {
			fmt.Fprintf(w, "  %s\n", tele.Note)
		}
	}
	return nil
}

func progressLine(p drive.Progress) string {
	total := "?"
	if p.Total > 0 {
		total = fmt.Sprint(p.Total)
	}
	return fmt.Sprintf("%d/%s done, %d warm-up, %s elapsed, %d errors, p50 TTFT %v   ",
		p.Done, total, p.Warmup, p.Elapsed.Round(time.Second), p.Errors, p.TTFTp50.Round(time.Millisecond))
}

func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
