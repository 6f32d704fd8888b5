package drive_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"time"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/drive"
	"github.com/llmmetrics/llmmetrics/observe"
)

// server streams a chat completion of max_tokens one-token chunks, with
// usage that counts a prompt's words plus 3 for the template, and no
// prefix cache.
func server() *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Messages  []struct{ Content string }
			MaxTokens int `json:"max_tokens"`
		}
		b, _ := io.ReadAll(r.Body)
		json.Unmarshal(b, &body)
		n := max(body.MaxTokens, 1)
		w.Header().Set("Content-Type", "text/event-stream")
		for i := range n {
			fmt.Fprintf(w, "data: {\"choices\":[{\"delta\":{\"content\":\"t%d\"}}]}\n\n", i)
		}
		fmt.Fprintf(w, "data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"length\"}]}\n\n")
		fmt.Fprintf(w, "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":%d,\"completion_tokens\":%d,\"prompt_tokens_details\":{\"cached_tokens\":0}}}\n\n",
			len(strings.Fields(body.Messages[0].Content))+3, n)
		fmt.Fprint(w, "data: [DONE]\n\n")
	}))
}

func ExampleRun() {
	srv := server()
	defer srv.Close()
	out, err := drive.Run(context.Background(), drive.Plan{
		URL: srv.URL + "/v1/chat/completions", API: observe.Chat, Model: "m", MaxTokens: 4,
		Prompts: []string{"Hello"}, Requests: 6, Concurrency: 2, Warmup: drive.Warmup{Requests: 2},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	warm, ok := 0, 0
	for _, r := range out.Results {
		if r.Record.Warmup {
			warm++
		} else if r.Record.Status == llmmetrics.StatusOK && r.Record.CompletionTokens == 4 {
			ok++
		}
	}
	fmt.Println(len(out.Results), "sent:", warm, "warm-up,", ok, "measured ok")
	// Output: 8 sent: 2 warm-up, 6 measured ok
}

func ExampleCheck() {
	err := drive.Check(drive.Plan{URL: "http://127.0.0.1:8000/v1/chat/completions", Prompts: []string{"Hi"}, Requests: 10})
	fmt.Println(err)
	// Output: drive: give a concurrency (closed loop) or a rate (open loop)
}

func ExampleSyntheticPrompts() {
	srv := server()
	defer srv.Close()
	p := drive.Plan{URL: srv.URL + "/v1/chat/completions", API: observe.Chat, Model: "m", Seed: 1}
	prompts, preflight, _, err := drive.SyntheticPrompts(context.Background(), p, 100, 3)
	if err != nil {
		fmt.Println(err)
		return
	}
	// The server counts words + 3. The two preflight requests, of one
	// word after a salt word and of the salt alone, got 5 and 4 prompt
	// tokens: 1 a word and 4 for the template and salt, so a prompt of 100
	// tokens is a salt and 96 words. The sizing requests are never longer
	// than one word, the shortest prompt there is.
	fmt.Println(len(prompts), len(strings.Fields(prompts[0])), preflight[0].Record.PromptTokens, preflight[1].Record.PromptTokens)

	// A prompt shorter than a one-word prompt cannot be made.
	_, _, _, err = drive.SyntheticPrompts(context.Background(), p, 4, 3)
	fmt.Println(err)
	// Output:
	// 3 97 5 4
	// drive: prompts of 4 tokens are shorter than the smallest this server allows: a one-word prompt counts 5 tokens (the word, the chat template and the 8-character salt)
}

// TooShortError gives the template's own size.
func ExampleTooShortError_Error() {
	err := &drive.TooShortError{Tokens: 10, Smallest: 31}
	fmt.Println(err)
	// Output: drive: prompts of 10 tokens are shorter than the smallest this server allows: a one-word prompt counts 31 tokens (the word, the chat template and the 8-character salt)
}

func ExampleBreakdown() {
	srv := server()
	defer srv.Close()
	out, err := drive.Breakdown(context.Background(), drive.BreakdownPlan{
		Plan:    drive.Plan{URL: srv.URL + "/v1/chat/completions", API: observe.Chat, Model: "m", MaxTokens: 2},
		Lengths: []int{512, 128}, Repeats: 2, Settle: time.Millisecond,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(out.SaltNote)
	for _, l := range out.Lengths {
		for _, r := range l.Results {
			fmt.Println(l.Tokens, r.Record.ID, r.Record.PromptTokens, r.CachedTokens, r.Record.Status)
		}
	}
	// Output:
	// cache_salt field: a repeated prompt under a new salt had 0 of its 128 prompt tokens from the cache
	// 128 len128-1 128 0 ok
	// 128 len128-2 128 0 ok
	// 512 len512-1 512 0 ok
	// 512 len512-2 512 0 ok
}

func ExampleCheckBreakdown() {
	err := drive.CheckBreakdown(drive.BreakdownPlan{Plan: drive.Plan{URL: "http://127.0.0.1:8000/v1/completions"}, Lengths: []int{128, 128}, Repeats: 5})
	fmt.Println(err)
	// Output: drive: prompt length 128 given twice
}

func ExampleSalt_String() {
	fmt.Println(drive.SaltField, drive.SaltText)
	// Output: cache_salt text
}

func ExampleBreakdownOutcome_Results() {
	srv := server()
	defer srv.Close()
	out, _ := drive.Breakdown(context.Background(), drive.BreakdownPlan{
		Plan:    drive.Plan{URL: srv.URL + "/v1/chat/completions", API: observe.Chat, Model: "m"},
		Lengths: []int{64}, Repeats: 3, Settle: time.Millisecond,
	})
	for _, r := range out.Results() {
		fmt.Print(r.Record.ID, " ")
	}
	fmt.Println()
	// Output: preflight-1 preflight-2 salt-1 salt-2 len64-1 len64-2 len64-3
}

func ExampleSearchCapacity() {
	srv := server()
	defer srv.Close()
	p := drive.Plan{URL: srv.URL + "/v1/chat/completions", API: observe.Chat, Model: "m", MaxTokens: 2, Prompts: []string{"hi"}, Requests: 5}
	// A fast server meets a 1 s TTFT at every level up to the ceiling.
	out, _ := drive.SearchCapacity(context.Background(), p, drive.Search{Kind: "concurrency", Max: 4, Repeats: 2,
		SLO: llmmetrics.SLO{TTFT: time.Second}})
	var levels []float64
	for _, pr := range out.Probes {
		levels = append(levels, pr.Level)
	}
	fmt.Println(levels)
	fmt.Println(*out.Passing, out.Failing == nil)
	// Output:
	// [1 2 4 4]
	// 4 true
}

func ExampleSearchOutcome_Results() {
	srv := server()
	defer srv.Close()
	p := drive.Plan{URL: srv.URL + "/v1/chat/completions", API: observe.Chat, Model: "m", Prompts: []string{"hi"}, Requests: 3}
	out, _ := drive.SearchCapacity(context.Background(), p, drive.Search{Kind: "concurrency", Max: 2, Repeats: 1,
		SLO: llmmetrics.SLO{TTFT: time.Second}})
	fmt.Println(len(out.Probes), "probes,", len(out.Results()), "requests")
	// Output: 2 probes, 6 requests
}

func ExampleSearchOutcome_MedianAttainment() {
	srv := server()
	defer srv.Close()
	p := drive.Plan{URL: srv.URL + "/v1/chat/completions", API: observe.Chat, Model: "m", Prompts: []string{"hi"}, Requests: 3}
	out, _ := drive.SearchCapacity(context.Background(), p, drive.Search{Kind: "rate", From: 50, Max: 50, Repeats: 3,
		SLO: llmmetrics.SLO{TTFT: time.Second}})
	fmt.Println(out.MedianAttainment(50))
	// Output: 1 3
}

// A test request before the run stops it at once with the server's words
// when the URL, the model or the key is wrong.
func ExampleTestRequest() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, `{"error":{"message":"model 'm' not found"}}`, http.StatusNotFound)
	}))
	defer srv.Close()
	_, err := drive.TestRequest(context.Background(), drive.Plan{
		URL: srv.URL + "/v1/chat/completions", API: observe.Chat, Model: "m", Prompts: []string{"Hello"},
	})
	fmt.Println(err)
	var re *drive.RequestError
	if errors.As(err, &re) {
		fmt.Println(re.HTTPStatus)
	}
	// Output:
	// drive: the test request failed: error: HTTP 404: model 'm' not found
	// 404
}

// Prompts of lengths of their own, sized by one calibration.
func ExampleSizedPrompts() {
	srv := server()
	defer srv.Close()
	p := drive.Plan{URL: srv.URL + "/v1/chat/completions", API: observe.Chat, Model: "m", Seed: 1}
	prompts, _, note, err := drive.SizedPrompts(context.Background(), p, []int{50, 100, 75})
	if err != nil {
		fmt.Println(err)
		return
	}
	// The server counts words + 3: a salt and 46, 96 and 71 words.
	var counts []string
	for _, pr := range prompts {
		counts = append(counts, fmt.Sprint(len(strings.Fields(pr))+3))
	}
	fmt.Println(strings.Join(counts, " "))
	fmt.Println(note)
	// Output:
	// 50 100 75
	// prompts of 46 to 96 words for the 50 to 100 prompt tokens asked: 50 to 100 tokens as the server counts them, the nearest that whole words come (sized by two preflight requests, of one word and of the salt alone: 1 token a word, 4 for the template and salt); the report gives the counts the server returned
}

// A plan's own client waits 5 s for the server's side of a TLS handshake,
// or the plan's Stall when that is shorter.
func ExamplePlan_TLSHandshake() {
	fmt.Println(drive.Plan{}.TLSHandshake(), drive.Plan{Stall: time.Second}.TLSHandshake())
	// Output: 5s 1s
}

// The plan's client, for other requests to its server: here what the
// server says of itself.
func ExampleNewClient() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"version":"1.2"}`)
	}))
	defer srv.Close()
	c := drive.NewClient(drive.Plan{URL: srv.URL + "/v1/chat/completions"})
	c.Timeout = 3 * time.Second
	resp, err := c.Get(srv.URL + "/version")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	fmt.Println(resp.StatusCode, string(b))
	// Output: 200 {"version":"1.2"}
}

// An https:// URL to a server that speaks plain HTTP (here one that
// answers the TLS hello with an HTTP error) fails with a *HandshakeError
// that says why and which URL to try.
func ExampleHandshakeError_Timeout() {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Read(make([]byte, 1024))
			io.WriteString(c, "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
			c.Close()
		}
	}()
	u := "https://" + ln.Addr().String() + "/version"
	_, err = drive.NewClient(drive.Plan{URL: u}).Get(u)
	var he *drive.HandshakeError
	if errors.As(err, &he) {
		fmt.Println(he.Reason)
		fmt.Println(he.Try == "http://"+ln.Addr().String()+"/version", he.Timeout())
	}
	// Output:
	// the server answered the TLS handshake in plain HTTP: it speaks HTTP, not HTTPS
	// true false
}

func ExampleParseArrivals() {
	a, err := drive.ParseArrivals("onoff:on=2s,off=8s,rate=40")
	fmt.Println(a.On, a.Off, a.Rate, err)
	_, err = drive.ParseArrivals("pareto:alpha=0.9,rate=20")
	fmt.Println(err)
	// Output:
	// 2s 8s 40 <nil>
	// drive: arrivals pareto:alpha=0.9,rate=20: alpha must exceed 1 (at 1 or below the mean gap is infinite, and no rate can be kept)
}

// ON-OFF's mean rate is its rate while ON times the share of time ON.
func ExampleArrivals_MeanRate() {
	a := drive.Arrivals{Process: "onoff", Rate: 40, On: 2e9, Off: 8e9}
	fmt.Println(a.MeanRate())
	// Output: 8
}

func ExampleArrivals_String() {
	fmt.Println(drive.Arrivals{Process: "pareto", Alpha: 1.5, Rate: 20})
	// Output: pareto:alpha=1.5,rate=20
}

// Schedule lists what a plan would send, without a server: here three
// ON-OFF arrivals, all in the first 100 ms of each second.
func ExampleSchedule() {
	a, _ := drive.ParseArrivals("onoff:on=100ms,off=900ms,rate=20")
	p := drive.Plan{URL: "http://127.0.0.1:8000/v1/chat/completions", Requests: 3, Arrivals: a, Rate: a.MeanRate(),
		MaxTokens: 64, PromptTokensEach: []int{512}, Seed: 1}
	reqs, _, err := drive.Schedule(p)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range reqs {
		fmt.Println(r.Scheduled%1e9 < 1e8, r.PromptTokens, r.MaxTokens)
	}
	// Output:
	// true 512 64
	// true 512 64
	// true 512 64
}

func ExampleSizePrompts() {
	srv := server()
	defer srv.Close()
	p := drive.Plan{URL: srv.URL + "/v1/chat/completions", API: observe.Chat, Model: "m", Seed: 1}
	sz, preflight, _, err := drive.SizePrompts(context.Background(), p, 50, 2000)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(preflight), sz.Tokens(1200))
	// Output: 2 1200
}

// Prompt makes request n's prompt when it is sent; the server of these
// examples counts words + 3.
func ExampleSizing_Prompt() {
	srv := server()
	defer srv.Close()
	p := drive.Plan{URL: srv.URL + "/v1/chat/completions", API: observe.Chat, Model: "m", Seed: 1}
	sz, _, _, _ := drive.SizePrompts(context.Background(), p, 50, 100)
	one, two := sz.Prompt(1, 75), sz.Prompt(2, 75)
	fmt.Println(len(strings.Fields(one))+3, one[:8] != two[:8])
	// Output: 75 true
}

// Tokens is the count the server gives the prompt made for a length: the
// nearest whole words come.
func ExampleSizing_Tokens() {
	srv := server()
	defer srv.Close()
	p := drive.Plan{URL: srv.URL + "/v1/chat/completions", API: observe.Chat, Model: "m", Seed: 1}
	sz, _, _, _ := drive.SizePrompts(context.Background(), p, 10, 100)
	fmt.Println(sz.Tokens(10), sz.Tokens(99))
	// Output: 10 99
}

// The server of these examples counts words + 3: a word and the salt, 5.
func ExampleSizing_Smallest() {
	srv := server()
	defer srv.Close()
	p := drive.Plan{URL: srv.URL + "/v1/chat/completions", API: observe.Chat, Model: "m", Seed: 1}
	sz, _, _, _ := drive.SizePrompts(context.Background(), p, 2, 100)
	fmt.Println(sz.Smallest(), sz.Tokens(2))
	// Output: 5 5
}

// Chat and completions can be asked for exactly max_tokens; a field given
// in Extra is the caller's.
func ExamplePlan_ExactFields() {
	p := drive.Plan{API: observe.Chat, ExactOutput: true}
	fmt.Println(p.ExactFields())
	p.Extra = map[string]json.RawMessage{"ignore_eos": json.RawMessage("false")}
	fmt.Println(p.ExactFields())
	p.API = observe.Ollama
	fmt.Println(p.ExactFields())
	// Output:
	// [ignore_eos min_tokens]
	// [min_tokens]
	// []
}

func ExampleWritePlan() {
	reqs := []drive.Request{
		{Scheduled: 0, HasSchedule: true, PromptTokens: 1020, MaxTokens: 129, Source: "conv.csv:2"},
		{Scheduled: 52e6, HasSchedule: true, PromptTokens: 3180, MaxTokens: 8, PrefixBlocks: []int{0, 1}},
	}
	drive.WritePlan(os.Stdout, &drive.PlanHeader{Load: map[string]string{"loop": "open"}}, reqs)
	// Output:
	// {"llmmetrics_plan":{"load":{"loop":"open"}}}
	// {"id":"1","scheduled_ns":0,"prompt_tokens":1020,"max_tokens":129,"source":"conv.csv:2"}
	// {"id":"2","scheduled_ns":52000000,"prompt_tokens":3180,"max_tokens":8,"prefix_blocks":[0,1]}
}

func ExampleReadPlan() {
	in := `{"llmmetrics_plan":{"load":{"loop":"closed"}}}
{"id":"1","prompt_tokens":512,"max_tokens":64}
{"id":"2","prompt_tokens":512,"max_tokens":64,"warmup":true}
`
	h, reqs, err := drive.ReadPlan(strings.NewReader(in))
	fmt.Println(h.Load["loop"], len(reqs), reqs[1].Warmup, reqs[0].HasSchedule, err)
	// Output: closed 2 true false <nil>
}

// The prompts of requests that share prefix blocks begin with the same
// text, block for block: here blocks of 4 tokens, made with a zero Sizing
// (a word a token, no server asked).
func ExamplePlan_Prompt() {
	p := drive.Plan{Sizing: &drive.Sizing{}, PrefixBlockTokens: 4, Replay: []drive.Request{
		{PromptTokens: 8, MaxTokens: 1, PrefixBlocks: []int{0, 1}},
		{PromptTokens: 6, MaxTokens: 1, PrefixBlocks: []int{0, 2}},
	}}
	fmt.Println(p.Prompt(1))
	fmt.Println(p.Prompt(2))
	// Output:
	// 92ca2f0e hello hello hello hello 36deb503 hello hello hello hello
	// 92ca2f0e hello hello hello hello b4421bbb hello hello
}

// The prompt tokens a prefix cache could reuse: the second request's
// first block of 512 was sent by the first.
func ExamplePrefixShare() {
	fmt.Println(drive.PrefixShare([]drive.Request{
		{PromptTokens: 1000, PrefixBlocks: []int{0, 1}},
		{PromptTokens: 800, PrefixBlocks: []int{0, 2}},
	}, 512))
	// Output: [0 512]
}

// A zero Sizing, made without a server, counts a word a token.
func ExampleSizing_TokensPerWord() {
	fmt.Println((&drive.Sizing{}).TokensPerWord())
	// Output: 1
}
