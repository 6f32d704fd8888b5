package main

import (
	"errors"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/formats"
)

// withoutSampleRates takes the rates out of the summary of a file that
// keeps only a sample of its requests (formats.File.Sample): over the
// run's window they would count only the kept requests, so they are
// absent, with the reason, as is the goodput rate; the attainment, a
// fraction, stays a figure of the sample.
func withoutSampleRates(s *llmmetrics.Summary, file *formats.File) {
	if file.Sample == nil {
		return
	}
	why := file.Sample.RatesAbsent()
	s.Throughput = nil
	delete(s.Absent, "output_tokens_per_s")
	delete(s.Absent, "prompt_tokens_per_s")
	s.Absent["throughput"] = why
	if g := s.Goodput; g != nil {
		g.RequestsPerSecond, g.WindowErr = 0, errors.New(why)
	}
}
