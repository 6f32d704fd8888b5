package drive

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"
)

// A plan file holds the requests of a run that was planned, not sent (a
// dry run): a first line {"llmmetrics_plan": {...}} (a PlanHeader), then
// one request a line, in send order:
//
//	{"id":"1","scheduled_ns":0,"prompt_tokens":1020,"max_tokens":129,
//	 "prefix_blocks":[0,1],"source":"conv.csv:2"}
//
// Keys: id; warmup (true for a warm-up request); scheduled_ns (an open
// loop's due time from the start of its part of the run, in nanoseconds;
// absent in a closed loop); prompt_tokens (the prompt length targeted, as
// the server counts tokens; absent for a given prompt); max_tokens (absent
// when none is sent); prefix_blocks, group, session and turn (the
// request's shared prefix and conversation, when the workload has them);
// after_session, after_turn and think_time_ns (a session's request whose
// time is not known ahead: it is sent think_time_ns after that answer
// ends); stream (false for a request sent without streaming, as a
// replayed run file's production call was: see Request.Unstreamed; absent
// or true, a streamed one); source (a replayed trace's file and line).
// Unknown keys are an error.

// A PlanHeader describes a planned run: the first line of a plan file.
type PlanHeader struct {
	Tool   string            `json:"tool,omitempty"`
	Target string            `json:"target,omitempty"`
	API    string            `json:"api,omitempty"`
	Model  string            `json:"model,omitempty"`
	Load   map[string]string `json:"load,omitempty"` // as a run header's load
	Flags  map[string]string `json:"flags,omitempty"`
	Notes  []string          `json:"notes,omitempty"`
}

type planLine struct {
	Plan *PlanHeader `json:"llmmetrics_plan"`
}

type planRow struct {
	ID           string `json:"id"`
	Warmup       bool   `json:"warmup,omitempty"`
	ScheduledNS  *int64 `json:"scheduled_ns,omitempty"`
	PromptTokens int    `json:"prompt_tokens,omitempty"`
	MaxTokens    int    `json:"max_tokens,omitempty"`
	PrefixBlocks []int  `json:"prefix_blocks,omitempty"`
	Group        string `json:"group,omitempty"`
	Session      string `json:"session,omitempty"`
	Turn         int    `json:"turn,omitempty"`
	AfterSession string `json:"after_session,omitempty"`
	AfterTurn    int    `json:"after_turn,omitempty"`
	ThinkNS      *int64 `json:"think_time_ns,omitempty"` // with after_turn
	Stream       *bool  `json:"stream,omitempty"`        // false: Unstreamed
	Source       string `json:"source,omitempty"`
}

// PlanPrefix is how a plan file begins.
const PlanPrefix = `{"llmmetrics_plan"`

// WritePlan writes a plan file: h, then the requests, named 1…N in order.
func WritePlan(w io.Writer, h *PlanHeader, reqs []Request) error {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	if err := enc.Encode(planLine{Plan: h}); err != nil {
		return err
	}
	for i, r := range reqs {
		if err := enc.Encode(newPlanRow(i, r)); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// ReadPlan reads a plan file that WritePlan wrote. A line that cannot be
// read stops it with an error naming the line.
func ReadPlan(r io.Reader) (*PlanHeader, []Request, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 64<<20)
	var h *PlanHeader
	var reqs []Request
	for line := 1; sc.Scan(); line++ {
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		if h == nil {
			var pl planLine
			if err := dec.Decode(&pl); err != nil || pl.Plan == nil {
				return nil, nil, fmt.Errorf("drive: plan line %d: not a plan's first line (%s…)", line, PlanPrefix)
			}
			h = pl.Plan
			continue
		}
		var row planRow
		if err := dec.Decode(&row); err != nil {
			return nil, nil, fmt.Errorf("drive: plan line %d: %v", line, err)
		}
		reqs = append(reqs, row.request())
	}
	if err := sc.Err(); err != nil {
		return nil, nil, err
	}
	if h == nil {
		return nil, nil, errors.New("drive: an empty plan file")
	}
	return h, reqs, nil
}

// newPlanRow is request r's row, the i-th (from 0) of its plan.
func newPlanRow(i int, r Request) planRow {
	row := planRow{ID: strconv.Itoa(i + 1), Warmup: r.Warmup, PromptTokens: r.PromptTokens, MaxTokens: r.MaxTokens,
		PrefixBlocks: r.PrefixBlocks, Group: r.Group, Session: r.Session, Turn: r.Turn, Source: r.Source}
	if r.HasSchedule {
		ns := int64(r.Scheduled)
		row.ScheduledNS = &ns
	}
	if r.Unstreamed {
		row.Stream = new(bool)
	}
	if r.AfterTurn > 0 {
		ns := int64(r.ThinkTime)
		row.AfterSession, row.AfterTurn, row.ThinkNS = r.AfterSession, r.AfterTurn, &ns
	}
	return row
}

// request is the row's request.
func (row planRow) request() Request {
	q := Request{Warmup: row.Warmup, PromptTokens: row.PromptTokens, MaxTokens: row.MaxTokens, PrefixBlocks: row.PrefixBlocks,
		Group: row.Group, Session: row.Session, Turn: row.Turn, AfterSession: row.AfterSession, AfterTurn: row.AfterTurn, Source: row.Source}
	if row.ScheduledNS != nil {
		q.Scheduled, q.HasSchedule = time.Duration(*row.ScheduledNS), true
	}
	if row.ThinkNS != nil {
		q.ThinkTime = time.Duration(*row.ThinkNS)
	}
	q.Unstreamed = row.Stream != nil && !*row.Stream
	return q
}
