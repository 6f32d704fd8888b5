package main

import (
	"strings"

	"github.com/llmmetrics/llmmetrics"
)

// metricOf returns the catalogue's metric of a key, and false for a key
// it does not hold.
func metricOf(key string) (llmmetrics.Metric, bool) {
	var m llmmetrics.Metric
	err := m.UnmarshalText([]byte(key))
	return m, err == nil
}

// headlineKeys are the keys of the catalogue's headline metrics (TTFT,
// TPOT and E2E), which the charts of a report and a diff draw.
func headlineKeys() []string {
	var keys []string
	for _, m := range llmmetrics.Metrics() {
		if m.Headline {
			keys = append(keys, m.Key)
		}
	}
	return keys
}

// metricKeys lists the keys of the catalogue's metrics for which keep is
// true, for a message: "ttft, tpot, e2e or max_gap".
func metricKeys(keep func(llmmetrics.Metric) bool) string {
	var keys []string
	for _, m := range llmmetrics.Metrics() {
		if keep(m) {
			keys = append(keys, m.Key)
		}
	}
	if len(keys) < 2 {
		return strings.Join(keys, "")
	}
	return strings.Join(keys[:len(keys)-1], ", ") + " or " + keys[len(keys)-1]
}
