package bounded_test

import (
	"strings"
	"testing"

	"github.com/llmmetrics/llmmetrics/bounded"
)

// A header's error is the file's: it is not said to be of "the batch of
// lines from 1", which a whole read does not say either.
func TestHeaderErrorNotOfABatch(t *testing.T) {
	_, _, err := bounded.Summarize(writeBytes(t, []byte("request_id,prompt_tokens,nope\na,1,2\n")), bounded.Options{})
	if err == nil || strings.Contains(err.Error(), "batch") || !strings.Contains(err.Error(), `unknown column "nope"`) {
		t.Fatalf("got %v", err)
	}
}
