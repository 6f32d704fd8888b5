// Goodput: the cohort of seed 002 of the specification, the joint-SLO question, and how the
// figures move as the limits loosen.
//
//	go run ./examples/goodput
package main

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/llmmetrics/llmmetrics"
)

func main() {
	if err := run(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func run(w io.Writer) error {
	ms := time.Millisecond
	// Cell 1: five requests offered in 10 s. Each has three tokens, so its
	// last token comes at TTFT + 2·TPOT. E timed out.
	req := func(id string, sent, ttft, tpot time.Duration) llmmetrics.Record {
		return llmmetrics.Record{ID: id, Sent: sent, FirstText: ttft, LastText: ttft + 2*tpot, CompletionTokens: 3}
	}
	cohort := []llmmetrics.Record{
		req("A", 0, 100*ms, 20*ms),
		req("B", 2000*ms, 200*ms, 40*ms),
		req("C", 4000*ms, 700*ms, 20*ms),
		req("D", 6000*ms, 100*ms, 80*ms),
		{ID: "E", Sent: 8000 * ms, Status: llmmetrics.StatusTimeout, Message: "deadline"},
	}

	// Cell 2: judge each request against both limits at once.
	slo := llmmetrics.SLO{TTFT: 500 * ms, TPOT: 50 * ms}
	for i := range cohort {
		ok, err := slo.Meets(&cohort[i])
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "%s meets %v: %v\n", cohort[i].ID, slo, ok)
	}

	// Cell 3: the two figures. The timeout stays in the denominator.
	s, err := llmmetrics.Summarize(cohort, llmmetrics.Options{SLO: &slo, Window: 10 * time.Second})
	if err != nil {
		return err
	}
	g := s.Goodput
	fmt.Fprintf(w, "attainment %d/%d = %.0f%%; goodput %d/%v = %.1f requests/s\n",
		g.Good, g.Offered, 100*g.Attainment, g.Good, g.Window.Length, g.RequestsPerSecond)

	// Cell 4: 90 of 100 pass TTFT and 90 pass TPOT, but the failures are
	// different requests.
	var hundred []llmmetrics.Record
	for i := range 100 {
		ttft, tpot := 100*ms, 20*ms
		if i < 10 {
			ttft = 900 * ms
		} else if i < 20 {
			tpot = 90 * ms
		}
		hundred = append(hundred, req(fmt.Sprint(i), 0, ttft, tpot))
	}
	s, err = llmmetrics.Summarize(hundred, llmmetrics.Options{SLO: &slo})
	if err != nil {
		return err
	}
	g = s.Goodput
	fmt.Fprintf(w, "fail TTFT %d, fail TPOT %d, pass both %d of %d\n", g.FailedTTFT, g.FailedTPOT, g.Good, g.Offered)

	// Cell 5: loosening the TTFT limit on the cohort.
	for _, limit := range []time.Duration{150 * ms, 500 * ms, time.Second} {
		loose := llmmetrics.SLO{TTFT: limit, TPOT: 50 * ms}
		s, err := llmmetrics.Summarize(cohort, llmmetrics.Options{SLO: &loose, Window: 10 * time.Second})
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "TTFT ≤ %v: attainment %.0f%%\n", limit, 100*s.Goodput.Attainment)
	}
	return nil
}
