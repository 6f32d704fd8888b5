package llmmetrics

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// shareFile is a run's file of n records (one 10 ms apart, each with its
// text 5 and 9 ns after its send) under a header that promises an end
// line, with the given end line ("" for none).
func shareFile(n int, end string) string {
	var b strings.Builder
	b.WriteString(`{"llmmetrics_run":{"tool":"t","start":"2026-01-01T00:00:00Z","ends":true}}` + "\n")
	for i := range n {
		b.WriteString(`{"id":"` + string(rune('a'+i)) + `","sent_ns":` + string(rune('1'+i)) + `0000000,"first_text_ns":5,"last_text_ns":9,"completion_tokens":2}` + "\n")
	}
	if end != "" {
		b.WriteString(end + "\n")
	}
	return b.String()
}

func readShares(t *testing.T, files ...string) []*Run {
	var runs []*Run
	for _, f := range files {
		run, err := ReadJSONL(strings.NewReader(f))
		require.NoError(t, err)
		runs = append(runs, run)
	}
	return runs
}

// Merged runs end as their parts did (issue #30, point 4: every merged
// run read TRUNCATED, hiding a part that really was): completed when
// every part completed, with the counts added up; interrupted when one
// part was, saying which; truncated when one part lacks its end line.
func TestMergeRunsEnds(t *testing.T) {
	done2 := `{"llmmetrics_end":{"state":"completed","planned":2,"written":2}}`
	done3 := `{"llmmetrics_end":{"state":"completed","planned":3,"written":3}}`
	stopped := `{"llmmetrics_end":{"state":"interrupted","by":"SIGINT","planned":3,"written":1}}`
	empty := `{"llmmetrics_end":{"state":"completed","written":0}}` // a share of no request

	m, err := MergeRuns(readShares(t, shareFile(2, done2), shareFile(3, done3), shareFile(0, empty)))
	require.NoError(t, err)
	s, err := m.Summarize(Options{})
	require.NoError(t, err)
	// 2 + 3 + 0 planned and written, 5 read.
	assert.Equal(t, &Completeness{State: "completed", Planned: 5, Written: 5, Read: 5}, s.Completeness)
	assert.True(t, m.Header.Ends)

	m, err = MergeRuns(readShares(t, shareFile(3, done3), shareFile(1, stopped)))
	require.NoError(t, err)
	s, err = m.Summarize(Options{})
	require.NoError(t, err)
	assert.Equal(t, "interrupted", s.Completeness.State)
	assert.Equal(t, "SIGINT in run 2", s.Completeness.By)
	assert.Equal(t, "INTERRUPTED by SIGINT in run 2: 4 requests of 6 planned written; the figures cover only these", s.Completeness.Reason)

	// The second part's file stops before its end line.
	m, err = MergeRuns(readShares(t, shareFile(3, done3), shareFile(2, "")))
	require.NoError(t, err)
	assert.Nil(t, m.End)
	s, err = m.Summarize(Options{})
	require.NoError(t, err)
	assert.Equal(t, "truncated", s.Completeness.State)

	// A duration's parts have no planned count, nor has their merge.
	dur := `{"llmmetrics_end":{"state":"completed","written":2,"absent":{"planned":"a run of a duration"}}}`
	m, err = MergeRuns(readShares(t, shareFile(2, dur), shareFile(2, dur)))
	require.NoError(t, err)
	assert.Equal(t, &RunEnd{State: "completed", Written: 4, Absent: map[string]string{"planned": "run 2: a run of a duration"}}, m.End)

	// Files that say nothing of their end merge into a run that says
	// nothing either.
	plain := `{"llmmetrics_run":{"tool":"t","start":"2026-01-01T00:00:00Z"}}` + "\n" + `{"id":"a","sent_ns":0,"first_text_ns":5,"last_text_ns":9,"completion_tokens":2}` + "\n"
	m, err = MergeRuns(readShares(t, plain, plain))
	require.NoError(t, err)
	assert.Nil(t, m.End)
	assert.False(t, m.Header.Ends)
}

// Shares without send times merge into a run without them (their sends
// would otherwise read as each file's start, a throughput and arrivals
// the run never had); a share with them and one without are refused, as
// records of one file that disagree are.
func TestMergeRunsNoSendTimes(t *testing.T) {
	unsent := strings.ReplaceAll(strings.ReplaceAll(shareFile(2, ""), `"sent_ns":10000000,`, ""), `"sent_ns":20000000,`, "")
	runs := readShares(t, shareFile(2, ""), unsent)
	require.True(t, runs[1].NoSendTimes, unsent)
	_, err := MergeRuns(runs)
	assert.ErrorIs(t, err, ErrMerge)
	assert.ErrorContains(t, err, "runs 1 and 2 disagree on send times")
	m, err := MergeRuns(readShares(t, unsent, unsent))
	require.NoError(t, err)
	assert.True(t, m.NoSendTimes)
	s, err := m.Summarize(Options{})
	require.NoError(t, err)
	assert.Nil(t, s.Throughput)
	m, err = MergeRuns(readShares(t, shareFile(2, ""), shareFile(3, "")))
	require.NoError(t, err)
	assert.False(t, m.NoSendTimes)
}
