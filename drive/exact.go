package drive

import (
	"encoding/json"
	"maps"
	"strconv"

	"github.com/llmmetrics/llmmetrics/observe"
)

// ExactFields returns the request fields that ExactOutput adds for the
// plan's API, leaving out those Extra gives itself: ignore_eos and
// min_tokens for chat and completions; none for the other APIs, which
// have no field that forbids an early stop.
func (p Plan) ExactFields() []string {
	if !p.ExactOutput || p.API != observe.Chat && p.API != observe.Completions {
		return nil
	}
	var out []string
	for _, k := range []string{"ignore_eos", "min_tokens"} {
		if _, given := p.Extra[k]; !given {
			out = append(out, k)
		}
	}
	return out
}

// extra returns the fields merged over a request's defaults: the plan's
// Extra, with ExactOutput's for a request of maxTokens.
func (p Plan) extra(maxTokens int) map[string]json.RawMessage {
	fields := p.ExactFields()
	if len(fields) == 0 || maxTokens <= 0 {
		return p.Extra
	}
	out := maps.Clone(p.Extra)
	if out == nil {
		out = map[string]json.RawMessage{}
	}
	for _, k := range fields {
		if k == "ignore_eos" {
			out[k] = json.RawMessage("true")
		} else {
			out[k] = json.RawMessage(strconv.Itoa(maxTokens))
		}
	}
	return out
}
