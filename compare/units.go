package compare

import (
	"time"

	"github.com/llmmetrics/llmmetrics/internal/jsonobj"
)

// field and object build JSON objects whose keys keep their order.
type (
	field  = jsonobj.Field
	object = jsonobj.Object
)

// millis is a duration in milliseconds, the unit of every latency the
// comparisons print.
func millis(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
