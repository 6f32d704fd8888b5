package csvrow

import (
	"fmt"
	"slices"
	"strings"

	"github.com/llmmetrics/llmmetrics/internal/lineio"
)

// The format's columns, as its header names them exactly: those every
// file has, and those it may have.
var (
	Required = []string{"request_id", "prompt_tokens", "completion_tokens", "TTFT_ms", "E2E_ms"}
	Optional = []string{"sent_ms", "status", "message"}
)

// A HeaderError says why a header cannot be read: a required column is
// missing (Missing), or a column is unknown or repeated.
type HeaderError struct {
	Missing bool
	Detail  string
}

// ColumnsOf checks the names of a header's columns (the first may begin
// with a UTF-8 byte order mark) and finds each column.
func ColumnsOf(header []string) (Columns, *HeaderError) {
	col := map[string]int{}
	for i, h := range header {
		if i == 0 {
			h = strings.TrimPrefix(h, string(lineio.BOM))
		}
		if _, dup := col[h]; dup {
			return Columns{}, &HeaderError{Detail: fmt.Sprintf("column %q repeated", clip(h))}
		}
		if !slices.Contains(Required, h) && !slices.Contains(Optional, h) {
			return Columns{}, &HeaderError{Detail: fmt.Sprintf("unknown column %q (want %s, optionally %s)",
				clip(h), strings.Join(Required, ","), strings.Join(Optional, ","))}
		}
		col[h] = i
	}
	for _, h := range Required {
		if _, ok := col[h]; !ok {
			return Columns{}, &HeaderError{Missing: true, Detail: fmt.Sprintf("required column %q is missing", h)}
		}
	}
	at := func(h string) int {
		if i, ok := col[h]; ok {
			return i
		}
		return -1
	}
	return Columns{
		ID: at("request_id"), Prompt: at("prompt_tokens"), Completion: at("completion_tokens"),
		TTFT: at("TTFT_ms"), E2E: at("E2E_ms"), Sent: at("sent_ms"), Status: at("status"), Message: at("message"),
	}, nil
}

// clip shortens s for an error message.
func clip(s string) string {
	if len(s) > 20 {
		return s[:20] + "…"
	}
	return s
}
