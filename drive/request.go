package drive

import "time"

// A Request is one request of a plan, before it is sent: a row of a
// replayed trace (Plan.Replay), or of the plan that Schedule returns and a
// dry run writes (WritePlan).
type Request struct {
	Warmup bool
	// Scheduled is when the request is due, from the start of its part of
	// the run (the warm-up, the measured part); an open loop's, so
	// HasSchedule is false in a closed loop. Sent, its record's
	// Client.Scheduled is the part's start on the run's clock plus this.
	Scheduled   time.Duration
	HasSchedule bool
	// PromptTokens is the prompt length targeted, as the server counts
	// tokens (a synthetic prompt, sized at send time); 0 when the prompt is
	// given text (--prompts).
	PromptTokens int
	MaxTokens    int // the output length asked; 0: none sent
	// Unstreamed sends the request without streaming, as a call whose
	// answer comes whole in one JSON body: the body leaves out "stream":
	// true and stream_options (Ollama's says "stream": false, its API
	// streaming by default), and TGI's goes to /generate, not
	// /generate_stream. A replay of a run file sets it for the calls that
	// production made so (see trace.Row.Unstreamed). Its record is an
	// unstreamed answer: an E2E, no TTFT or TPOT.
	Unstreamed bool
	// PrefixBlocks are the prompt's prefix-cache blocks as a trace gives
	// them (Mooncake's hash_ids, of 512 tokens each: equal ids, equal
	// blocks), or the shared prefix drawn for it (Plan.PrefixGroups): its
	// prompt begins with their texts, identical wherever the ids agree.
	PrefixBlocks []int
	// Group, Session and Turn place the request in a shared-prefix group
	// and in a conversation's turns; empty when the workload has none.
	Group   string
	Session string
	Turn    int
	// AfterSession and AfterTurn name the answer a session's request
	// waits for, when it has no schedule ahead: turn k>1 follows its own
	// session's turn k−1; a warm-up session beyond the Sessions that run
	// at once begins after the last turn of the one whose place it takes.
	// It is sent ThinkTime after that answer ends, so its time depends on
	// the server and HasSchedule is false.
	AfterSession string
	AfterTurn    int
	ThinkTime    time.Duration
	// Source is where the request came from: a trace's file and line.
	Source string
}
