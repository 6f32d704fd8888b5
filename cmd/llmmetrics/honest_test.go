package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/llmmetrics/llmmetrics"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// writeLines writes a file of JSONL lines.
func writeLines(t *testing.T, name string, lines ...string) string {
	p := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o644))
	return p
}

// lateOpenLoop is an open loop of 10 requests/s capped at one in flight,
// by hand: five requests due at 0, 100, 200, 300 and 400 ms, sent at 0,
// 500, 1000, 1500 and 2000 ms (the server took 500 ms each), each with
// its first chunk 50 ms and its last 450 ms after the send; four more were
// due before the deadline and never sent (the end line says so). The
// client waited 0 before each write (wait_ns 0: without it the lateness
// would be unknown).
func lateOpenLoop(t *testing.T) string { return lateOpenLoopUnsent(t, "late.jsonl", 4) }

// lateOpenLoopUnsent is lateOpenLoop with the given name and unsent count.
func lateOpenLoopUnsent(t *testing.T, name string, unsent int) string {
	lines := []string{`{"llmmetrics_run":{"tool":"llmmetrics","model":"m","api":"chat","start":"2025-01-01T00:00:00Z","ends":true,` +
		`"load":{"loop":"open","rate_per_s":"10","burstiness":"1","max_in_flight":"1","duration":"1s","grace":"10s"}}}`}
	for i := range 5 {
		sent, due := int64(i)*500_000_000, int64(i)*100_000_000
		// The ids carry the file's name: two files are two machines' runs.
		lines = append(lines, fmt.Sprintf(`{"id":"%s%d","status":"ok","sent_ns":%d,"scheduled_ns":%d,"wait_ns":0,"chunk_arrivals_ns":[50000000,450000000],"prompt_tokens":3,"completion_tokens":2}`, name, i+1, sent, due))
	}
	lines = append(lines, fmt.Sprintf(`{"llmmetrics_end":{"state":"completed","written":5,"load":{"unsent_before_deadline":"%d"}}}`, unsent))
	return writeLines(t, name, lines...)
}

// report reads an open loop's check from its file, as run printed it.
// By hand: the schedule spans 400 ms over 4 gaps (10/s), the sends 2 s
// (2/s: 80% below); lateness 0, 400, 800, 1200 and 1600 ms, p99 (rank 5
// of 5) 1600 ms; TTFT from the scheduled time 50, 450, 850, 1250 and
// 1650 ms (p50, rank 3: 850 ms; p99 1650 ms) where TTFT from the send is
// 50 ms throughout; the last answer 450 ms after the last send, 5 ok
// answered over 2.45 s (2.041/s).
func TestReportOpenLoopCheck(t *testing.T) {
	file := lateOpenLoop(t)
	code, out, errs := runCLI(t, "", "report", file)
	require.Equal(t, 0, code, errs)
	top := "llmmetrics report: " + file + "\n\n" +
		"WARNING: the achieved rate, 2 requests/s, is 80% below the 10 of the schedule (offered 10): the client or the server fell behind, and the load was not the one asked for\n" +
		"WARNING: lateness p99 is 1.6s: requests were sent well after their scheduled time; the TTFT and E2E from the scheduled time (from sched.) include it\n\n"
	assert.True(t, strings.HasPrefix(out, top), out)
	assert.Regexp(t, `TTFT from sched\.\s+5\s+850\.000\s+\S+\s+50\.000\s+850\.000`, out)
	assert.Contains(t, out, "\nopen loop: offered 10 requests/s, scheduled 10, achieved 2 (measured sends over their span), lateness p99 1600.000 ms\n"+
		"  4 requests scheduled before the deadline were never sent: they still waited, for a slot under the concurrency cap or for a client behind, when sending stopped\n"+
		"  sending 2.000 s; its last answer came 0.450 s after the last send; 5 ok answered at 2.041 requests/s (first send to last answer)\n")

	code, out, errs = runCLI(t, "", "report", "--json", file)
	require.Equal(t, 0, code, errs)
	var got struct {
		Client struct {
			TTFT struct{ P99 float64 } `json:"ttft_from_scheduled_ms"`
			E2E  struct{ P99 float64 } `json:"e2e_from_scheduled_ms"`
		} `json:"client"`
		Load struct {
			Loop      string  `json:"loop"`
			Offered   float64 `json:"offered_requests_per_s"`
			Scheduled float64 `json:"scheduled_requests_per_s"`
			Achieved  float64 `json:"achieved_requests_per_s"`
			Lateness  float64 `json:"lateness_p99_ms"`
			Unsent    *int    `json:"unsent_before_deadline"`
			Drain     struct {
				Sending, Drain float64
			}
			Warnings []string `json:"warnings"`
		} `json:"load_check"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &got), out)
	assert.Equal(t, 1650.0, got.Client.TTFT.P99)
	assert.Equal(t, 2050.0, got.Client.E2E.P99) // 1600 late + 450
	assert.Equal(t, "open", got.Load.Loop)
	assert.Equal(t, []float64{10, 10, 2, 1600}, []float64{got.Load.Offered, got.Load.Scheduled, got.Load.Achieved, got.Load.Lateness})
	require.NotNil(t, got.Load.Unsent)
	assert.Equal(t, 4, *got.Load.Unsent)
	assert.Len(t, got.Load.Warnings, 2)
}

// Two machines that sent one plan merge into one run: the requests their
// caps never sent add up (4 + 3), which does not make them two plans.
func TestReportMergedUnsent(t *testing.T) {
	a, b := lateOpenLoopUnsent(t, "a.jsonl", 4), lateOpenLoopUnsent(t, "b.jsonl", 3)
	code, out, errs := runCLI(t, "", "report", "--merge", a, b)
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, "\n  7 requests scheduled before the deadline were never sent")
}

// A gate on TTFT from the send does not pass an open loop whose sends
// lagged their schedule when TTFT from the scheduled time crosses the
// same limit; the figures from the scheduled time gate by their own
// names. On lateOpenLoop, by hand: TTFT 50 ms from the send, p99 1650 ms
// from the scheduled time; TPOT 400 ms, untouched by the lateness.
func TestGateFromScheduled(t *testing.T) {
	file := lateOpenLoop(t)
	for _, tc := range []struct {
		cond string
		code int
		why  string
	}{
		{"p99(ttft)>100ms", 3, "p99(ttft)>100ms passed from each request's send (it is 50ms) but not from its scheduled time (p99(ttft_from_scheduled) is 1.65s)"},
		{"p99(ttft)>2s", 0, ""},
		{"p99(ttft_from_scheduled)>1s", 3, "p99(ttft_from_scheduled)>1s (it is 1.65s)"},
		{"max(e2e_from_scheduled)>=2050ms", 3, "max(e2e_from_scheduled)>=2050ms (it is 2.05s)"},
		{"p99(tpot)>1s", 0, ""},
	} {
		code, _, errs := runCLI(t, "", "report", "--fail-if", tc.cond, file)
		assert.Equal(t, tc.code, code, tc.cond)
		assert.Contains(t, errs, tc.why, tc.cond)
	}
	// A closed loop has no schedule: the figure is missing, an error.
	code, _, errs := runCLI(t, "", "report", "--fail-if", "p99(ttft_from_scheduled)>1s", "../../testdata/sample_run.jsonl")
	assert.Equal(t, 1, code)
	assert.Contains(t, errs, "only an open loop's ok requests carry a scheduled time")
}

// deadServer is a closed loop whose server stopped answering, by hand:
// five ok requests sent 250 ms apart from 0, each answered 200 ms later
// (the last answer at 1200 ms), then ten failures sent 350 ms apart from
// 1300 ms to 4450 ms. The check finds the stop at 1.2 s of 4.45 s of
// sending (3.25 s without an answer, far above a tenth of 4.45 s), and
// the summary's window is the ok requests', 1.2 s.
func deadServer(t *testing.T) string {
	lines := []string{`{"llmmetrics_run":{"tool":"llmmetrics","model":"m","api":"chat","start":"2025-01-01T00:00:00Z",` +
		`"load":{"loop":"closed","concurrency":"1","duration":"5s"}}}`}
	for i := range 5 {
		lines = append(lines, fmt.Sprintf(`{"id":"%d","status":"ok","sent_ns":%d,"chunk_arrivals_ns":[100000000,200000000],"prompt_tokens":3,"completion_tokens":2}`, i+1, int64(i)*250_000_000))
	}
	for i := range 10 {
		lines = append(lines, fmt.Sprintf(`{"id":"%d","status":"error","message":"dial tcp 127.0.0.1:9: connect: connection refused","sent_ns":%d,"prompt_tokens":0}`, i+6, 1_300_000_000+int64(i)*350_000_000))
	}
	return writeLines(t, "dead.jsonl", lines...)
}

// A server that stopped answering is said at the top of the report, text
// and JSON; a gate on a latency or a throughput does not pass such a run,
// one on the error rate is judged as it is (10 of 15: 0.667).
func TestReportServerStopped(t *testing.T) {
	file := deadServer(t)
	code, out, errs := runCLI(t, "", "report", file)
	require.Equal(t, 0, code, errs)
	assert.True(t, strings.HasPrefix(out, "llmmetrics report: "+file+"\n\n"+
		"WARNING: the server stopped answering 1.200 s into 4.450 s of sending: the 10 requests sent after the last it answered failed (10 errors; see the error set), so the figures cover the first 1.200 s\n\n"), out)
	assert.Contains(t, out, "throughput over 1.200 s")

	code, out, errs = runCLI(t, "", "report", "--json", file)
	require.Equal(t, 0, code, errs)
	var got struct {
		Load struct {
			Loop    string
			Stopped struct {
				At      float64 `json:"at_s"`
				Sending float64 `json:"sending_s"`
				Failed  int     `json:"failed"`
			} `json:"stopped_answering"`
		} `json:"load_check"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &got), out)
	assert.Equal(t, "closed", got.Load.Loop)
	assert.Equal(t, 10, got.Load.Stopped.Failed)
	assert.Equal(t, []float64{1.2, 4.45}, []float64{got.Load.Stopped.At, got.Load.Stopped.Sending})

	code, _, errs = runCLI(t, "", "report", "--fail-if", "p99(ttft)>1s", "--fail-if", "requests_per_s<1", file)
	assert.Equal(t, 3, code)
	assert.Contains(t, errs, "p99(ttft)>1s passed (it is 100ms), but the server stopped answering 1.200 s into 4.450 s of sending")
	assert.Contains(t, errs, "requests_per_s<1 passed")
	code, _, errs = runCLI(t, "", "report", "--fail-if", "error_rate>0.9", file)
	assert.Equal(t, 0, code, errs)
}

// rec is a measured record sent at sent ms, answered e2e ms later (its
// one chunk then), or failed with status st.
func rec(sent, e2e int, st llmmetrics.Status) llmmetrics.Record {
	r := llmmetrics.Record{Status: st, Sent: time.Duration(sent) * time.Millisecond}
	if st == llmmetrics.StatusOK {
		r.Chunks, r.CompletionTokens = []time.Duration{time.Duration(e2e) * time.Millisecond}, 1
	}
	return r
}

// ptrs points at each record, in order.
func ptrs(recs []llmmetrics.Record) []*llmmetrics.Record {
	var m []*llmmetrics.Record
	for i := range recs {
		m = append(m, &recs[i])
	}
	return m
}

// The stop needs no answer for more than a tenth of the sending and
// longer than the longest answered request, and minStopped failures sent
// after the last answer, or requests that hung until a completed run's
// grace ran out; cancelled requests of an interrupted run are the
// client's doing.
func TestStoppedAnswering(t *testing.T) {
	ok, fail, cancel := llmmetrics.StatusOK, llmmetrics.StatusError, llmmetrics.StatusCancelled
	completed := func(deadline int) ending {
		return ending{deadline: time.Duration(deadline) * time.Millisecond, hung: true}
	}
	for _, tc := range []struct {
		name string
		recs []llmmetrics.Record
		end  ending
		want *stopped
	}{
		// Answers until 1100 ms; failures at 2, 3 and 4 s: 2.9 s of 4 s.
		{"stopped", []llmmetrics.Record{rec(0, 100, ok), rec(1000, 100, ok), rec(2000, 0, fail), rec(3000, 0, fail), rec(4000, 0, fail)},
			ending{}, &stopped{AtS: 1.1, SendingS: 4, Failed: 3, Errors: 3}},
		// Two failures at the end are not a stop.
		{"two", []llmmetrics.Record{rec(0, 100, ok), rec(1000, 100, ok), rec(3000, 0, fail), rec(4000, 0, fail)}, ending{}, nil},
		// The last answer at 3950 ms: 50 ms of 4 s without one.
		{"short", []llmmetrics.Record{rec(0, 100, ok), rec(3900, 50, ok), rec(3960, 0, fail), rec(3980, 0, fail), rec(4000, 0, fail)}, ending{}, nil},
		// A failure before an answer is no stop; an interrupt's cancelled tail is not counted.
		{"interrupted", []llmmetrics.Record{rec(0, 100, ok), rec(500, 0, fail), rec(1000, 100, ok), rec(2000, 0, cancel), rec(3000, 0, cancel), rec(4000, 0, cancel)}, ending{}, nil},
		{"none ok", []llmmetrics.Record{rec(0, 0, fail), rec(1000, 0, fail), rec(2000, 0, fail), rec(3000, 0, fail)}, ending{}, nil},
		// A closed loop of two slots and a 5 s duration: answers until
		// 1100 ms, then both slots hang until the grace: 3.9 s of 5 s.
		{"hung", []llmmetrics.Record{rec(0, 100, ok), rec(1000, 100, ok), rec(1100, 0, cancel), rec(1100, 0, cancel)},
			completed(5000), &stopped{AtS: 1.1, SendingS: 5, Failed: 2, Cancelled: 2}},
		// One slot, 40 s requests, 60 s: the request sent at 40 s outlasts
		// the grace, but 20 s without an answer is shorter than a request.
		{"long requests", []llmmetrics.Record{rec(0, 40000, ok), rec(40000, 0, cancel)}, completed(60000), nil},
	} {
		assert.Equal(t, tc.want, stoppedAnswering(ptrs(tc.recs), tc.end), tc.name)
	}
}

// The drain: a server that answers each request 500 ms after its send
// (20 sends 100 ms apart, 1.9 s of sending) ends 0.5 s after the last
// send; one that answers one at a time every 100 ms (50 sends 20 ms
// apart, 0.98 s) ends at 5 s, 4.02 s after the last send, 10 answered a
// second; requests cancelled when a 2 s grace ran out were unanswered 2 s
// after the last send (1 s of sending).
func TestDrain(t *testing.T) {
	var healthy, queued []llmmetrics.Record
	for i := range 20 {
		healthy = append(healthy, rec(100*i, 500, llmmetrics.StatusOK))
	}
	for i := range 50 {
		queued = append(queued, rec(20*i, 100*(i+1)-20*i, llmmetrics.StatusOK))
	}
	d := drainOf(ptrs(healthy), 0)
	assert.InDelta(t, 1.9, d.SendingS, 1e-9)
	assert.InDelta(t, 0.5, d.DrainS, 1e-9)
	assert.False(t, d.behind())
	d = drainOf(ptrs(queued), 0)
	assert.InDelta(t, 0.98, d.SendingS, 1e-9)
	assert.InDelta(t, 4.02, d.DrainS, 1e-9)
	assert.InDelta(t, 10, d.AnsweredPerS, 1e-9)
	assert.True(t, d.behind())
	cut := []llmmetrics.Record{rec(0, 100, llmmetrics.StatusOK), rec(500, 100, llmmetrics.StatusOK), rec(1000, 0, llmmetrics.StatusCancelled)}
	d = drainOf(ptrs(cut), 2*time.Second)
	assert.InDelta(t, 2, d.DrainS, 1e-9)
	assert.True(t, d.behind())
	// The grace's end is a bound, not an answer: the last answer came at
	// 0.6 s, 0.4 s before the last send, and 2 ok over 0.6 s is 3.33/s.
	assert.InDelta(t, -0.4, d.LastAnswerS, 1e-9)
	assert.Equal(t, 1, d.Unanswered)
	assert.InDelta(t, 2/0.6, d.AnsweredPerS, 1e-9)
	assert.Equal(t, "1 request was still unanswered when the 2.000 s grace after the last send ran out (the last answer came 0.400 s before the last send)", d.after())
}

// loadSections returns what a report prints of its load check: the lines
// before the run's description (the warnings), and the open loop's
// section, which ends the report or comes before the error set.
func loadSections(t *testing.T, out string) string {
	_, rest, ok := strings.Cut(out, "\n\n")
	require.True(t, ok, out)
	warnings, _, ok := strings.Cut(rest, "run: ")
	require.True(t, ok, out)
	_, open, _ := strings.Cut(rest, "\nopen loop: ")
	open, _, _ = strings.Cut(open, "\nerror set")
	return warnings + "open loop: " + open
}

// queueServer answers one token after service, serving at most slots
// requests at a time and queueing the rest in arrival order: its latency
// is a function of the load (queueing), not of the machine's speed, and
// it answers at most slots/service requests a second.
func queueServer(t *testing.T, slots int, service time.Duration) *httptest.Server {
	sem := make(chan struct{}, slots)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			http.NotFound(w, r)
			return
		}
		sem <- struct{}{}
		time.Sleep(service)
		<-sem
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "data: {\"choices\":[{\"delta\":{\"content\":\"a\"},\"finish_reason\":\"length\"}]}\n\n")
		fmt.Fprint(w, "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":1}}\n\ndata: [DONE]\n\n")
	}))
	t.Cleanup(srv.Close)
	return srv
}

// An open loop without a cap sends on time whatever the server does; the
// server side of the check says when the server did not keep up. A server
// of one slot and 50 ms a request answers at most 20 a second: 40
// requests, scheduled at 100 a second over some 0.4 s, cannot all be
// answered before 40 × 50 ms = 2 s after the first send, so the last
// answer comes more than 1.6 s after the last send, longer than the
// sending. A server of four slots and 10 ms a request (400 a second)
// under a Poisson schedule of 50 a second answers each request some 10 ms
// after its send: no warning that the server fell behind or stopped.
func TestServerFellBehind(t *testing.T) {
	slow := queueServer(t, 1, 50*time.Millisecond)
	out := filepath.Join(t.TempDir(), "behind.jsonl")
	args := []string{"run", "--url", slow.URL + "/v1/chat/completions", "--model", "m", "--requests", "40", "--rate", "100",
		"--prompts", promptsFile(t), "--max-tokens", "1", "--out", out}
	code, stdout, errs := runCLI(t, "", args...)
	require.Equal(t, 0, code, errs)
	assert.True(t, strings.HasPrefix(stdout, "llmmetrics run\n\nWARNING: the server fell behind the load: its last answer came"), stdout)
	code, rep, errs := runCLI(t, "", "report", out)
	require.Equal(t, 0, code, errs)
	assert.Equal(t, loadSections(t, stdout), loadSections(t, rep))

	fast := queueServer(t, 4, 10*time.Millisecond)
	code, stdout, errs = runCLI(t, "", "run", "--url", fast.URL+"/v1/chat/completions", "--model", "m", "--requests", "50", "--rate", "50",
		"--prompts", promptsFile(t), "--max-tokens", "1", "--json")
	require.Equal(t, 0, code, errs)
	var got struct {
		Load struct {
			Warnings []string
			Drain    struct {
				Sending float64 `json:"sending_window_s"`
				Drain   float64 `json:"drain_after_last_send_s"`
			}
		} `json:"load_check"`
	}
	require.NoError(t, json.Unmarshal([]byte(stdout), &got), stdout)
	// Only the server side is asserted: a client on a busy machine may lag
	// its own schedule, and saying so is right.
	for _, w := range got.Load.Warnings {
		assert.NotContains(t, w, "WARNING: the server fell behind the load") // "the client or the server fell behind" may be said
		assert.NotContains(t, w, "stopped answering")
	}
	assert.Less(t, got.Load.Drain.Drain, got.Load.Drain.Sending)
}

// A server that stops answering mid-run (here, each request after the
// sixth fails at once) is said at the top of run's report and of report's
// of its file, for a closed loop and for an open one. The six answers come
// within a few milliseconds; the failures go on being sent until the
// deadline, 1.5 s after the first send (the closed loop's back-off, 10 ms
// doubling, sends its second failure a slot 10 ms later, its seventh
// 1.27 s later): far more than a tenth of the sending without an answer.
func TestServerStoppedRun(t *testing.T) {
	for _, load := range [][]string{{"--concurrency", "2"}, {"--rate", "20"}} {
		srv, _ := failingServer(t, func(k int64) string {
			if k <= 6 {
				return "ok"
			}
			return "500"
		})
		out := filepath.Join(t.TempDir(), "dead.jsonl")
		args := append([]string{"run", "--url", srv.URL + "/v1/chat/completions", "--model", "m", "--duration", "1500ms",
			"--prompts", promptsFile(t), "--max-tokens", "2", "--out", out}, load...)
		code, stdout, errs := runCLI(t, "", args...)
		require.Equal(t, 0, code, errs)
		assert.True(t, strings.HasPrefix(stdout, "llmmetrics run\n\nWARNING: the server stopped answering "), stdout)
		assert.Regexp(t, `requests sent after the last it answered failed \(\d+ errors; see the error set\), so the figures cover the first`, stdout)
		code, rep, errs := runCLI(t, "", "report", out)
		require.Equal(t, 0, code, errs)
		assert.Equal(t, loadSections(t, stdout), loadSections(t, rep), load)
	}
}

// An open loop of a duration whose cap held requests past the deadline
// says how many, in run's report, in the file's end line and in report's
// of it. 40 a second for 500 ms with one in flight against a server of
// 300 ms a request: at most two are sent (the third could begin only
// 600 ms after the first), so most of the schedule's arrivals (some 20;
// fixed by the default seed) were never sent.
func TestUnsentRun(t *testing.T) {
	srv := queueServer(t, 1, 300*time.Millisecond)
	out := filepath.Join(t.TempDir(), "capped.jsonl")
	code, stdout, errs := runCLI(t, "", "run", "--url", srv.URL+"/v1/chat/completions", "--model", "m", "--duration", "500ms",
		"--rate", "40", "--concurrency", "1", "--prompts", promptsFile(t), "--max-tokens", "1", "--out", out)
	require.Equal(t, 0, code, errs)
	assert.Regexp(t, `\n  \d+ requests scheduled before the deadline were never sent: they still waited, for a slot under the concurrency cap or for a client behind, when sending stopped\n`, stdout)
	run, err := llmmetrics.ReadJSONL(mustOpen(t, out))
	require.NoError(t, err)
	n, err := strconv.Atoi(run.End.Load["unsent_before_deadline"])
	require.NoError(t, err)
	assert.Greater(t, n, 3)
	code, rep, errs := runCLI(t, "", "report", out)
	require.Equal(t, 0, code, errs)
	assert.Equal(t, loadSections(t, stdout), loadSections(t, rep))
}

// A server that stops answering without failing (it hangs, as llama.cpp's
// server does on SIGTERM with requests in flight) leaves a closed loop's
// slots waiting until the grace runs out: no more is sent. The check
// counts the requests cancelled then, and takes the sending to the 1.5 s
// deadline: six answers within milliseconds, then nothing for about
// 1.5 s, far more than a tenth of the sending and than any answered
// request took. Of the two that hung, one may have been sent before the
// last answered one (the server counts arrivals, the client sends).
func TestServerHungRun(t *testing.T) {
	var k atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			http.NotFound(w, r)
			return
		}
		b, _ := io.ReadAll(r.Body)
		if !strings.Contains(string(b), `"max_tokens":1,`) && k.Add(1) > 6 {
			<-r.Context().Done() // hangs until the client gives up
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "data: {\"choices\":[{\"delta\":{\"content\":\"a\"},\"finish_reason\":\"length\"}]}\n\n")
		fmt.Fprint(w, "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":1}}\n\ndata: [DONE]\n\n")
	}))
	t.Cleanup(srv.Close)
	code, stdout, errs := runCLI(t, "", "run", "--url", srv.URL+"/v1/chat/completions", "--model", "m", "--duration", "1500ms",
		"--concurrency", "2", "--grace", "300ms", "--prompts", promptsFile(t), "--max-tokens", "2")
	require.Equal(t, 0, code, errs)
	assert.Regexp(t, `^llmmetrics run\n\nWARNING: the server stopped answering \d\.\d{3} s into 1\.5\d\d s of sending: the (1 request|2 requests) sent after the last it answered failed \([12] still unanswered when the grace ran out; see the error set\)`, stdout)
}
