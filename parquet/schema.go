package parquet

// row is one record as a row of the file: the JSONL keys as columns, in
// their order, then the record's unfinished mark, which JSONL does not
// carry, then the derived columns, which a reader does not read back.
//
// A pointer is a nullable column: null where the JSONL key is absent. A
// count is null when it is not known, never 0 (absent is not 0).
type row struct {
	ID               string  `parquet:"id"`
	Status           string  `parquet:"status,dict"`
	Message          *string `parquet:"message,optional"`
	SentNS           int64   `parquet:"sent_ns,delta"`
	FirstTextNS      *int64  `parquet:"first_text_ns,optional"`
	LastTextNS       *int64  `parquet:"last_text_ns,optional"`
	ChunkArrivalsNS  []int64 `parquet:"chunk_arrivals_ns,list"`
	ChunkTokens      []int32 `parquet:"chunk_tokens,list"`
	PromptTokens     *int64  `parquet:"prompt_tokens,optional"`
	CompletionTokens *int64  `parquet:"completion_tokens,optional"`
	MaxTokens        *int64  `parquet:"max_tokens,optional"`
	Warmup           bool    `parquet:"warmup"`
	Preflight        bool    `parquet:"preflight"`
	ScheduledNS      *int64  `parquet:"scheduled_ns,optional"`
	WaitNS           *int64  `parquet:"wait_ns,optional"`
	FirstAnswerNS    *int64  `parquet:"first_answer_ns,optional"`
	ReasoningTokens  *int64  `parquet:"reasoning_tokens,optional"`
	CachedPrompt     *int64  `parquet:"cached_prompt_tokens,optional"`
	Session          *string `parquet:"session,optional,dict"`
	Turn             *int64  `parquet:"turn,optional"`
	OneBody          bool    `parquet:"one_body"`
	Unfinished       bool    `parquet:"unfinished"`

	// Derived per request, as the report computes them; null where the
	// figure does not exist (a failed request has no TTFT).
	TTFTNS   *int64 `parquet:"ttft_ns,optional"`
	E2ENS    *int64 `parquet:"e2e_ns,optional"`
	TPOTNS   *int64 `parquet:"tpot_ns,optional"`
	MaxGapNS *int64 `parquet:"max_gap_ns,optional"`
	Outcome  string `parquet:"outcome,dict"`
	// SentUnixNS is the send time on the wall clock: the run header's
	// start (Unix nanoseconds) plus sent_ns; null when the run has no
	// header with a start or no real send times. It puts the rows of
	// shards that started apart on one clock. A file without the column
	// (written before it, or by another tool) is read as well.
	SentUnixNS *int64 `parquet:"sent_unix_ns,optional"`
}

// optionalColumn says whether a column of the schema may be missing from
// a file: those added after the schema's first version, one_body (false
// when missing) and the derived sent_unix_ns.
func optionalColumn(name string) bool { return name == "sent_unix_ns" || name == "one_body" }

// Keys of the file's key-value metadata.
const (
	keySchema      = "llmmetrics_schema"        // the schema's version, schemaVersion
	keyRun         = "llmmetrics_run"           // the run header, as JSON
	keyEnd         = "llmmetrics_end"           // the run's end line, as JSON
	keyCut         = "llmmetrics_cut"           // where the JSONL it came from ended inside a line, as JSON
	keyWindow      = "llmmetrics_window_ns"     // the throughput window the source declared
	keyNoSendTimes = "llmmetrics_no_send_times" // "true" when the source had no send times
)

// schemaVersion is the version of the schema this package writes and reads.
const schemaVersion = "1"

// columnOf names the column that holds a Record field, as
// llmmetrics.RecordError names it: chunks[3] is chunk_arrivals_ns[3].
func columnOf(field string) string {
	base, index := field, ""
	for i := range len(field) {
		if field[i] == '[' {
			base, index = field[:i], field[i:]
			break
		}
	}
	switch base {
	case "sent", "first_text", "last_text", "wait", "scheduled", "first_answer":
		base += "_ns"
	case "chunks":
		base = "chunk_arrivals_ns"
	}
	return base + index
}
