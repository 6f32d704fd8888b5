// Package trace reads the request-arrival traces of LLM services for
// replay: each row one request's arrival time and its prompt and output
// lengths in tokens. It reads four formats, detected from the file's first
// line or named:
//
//	azure       Azure's LLM inference trace (AzurePublicDataset): CSV with
//	            the columns TIMESTAMP (wall-clock text, 2023-11-16
//	            18:15:46.6805900), ContextTokens and GeneratedTokens; times
//	            from the first row
//	mooncake    Mooncake's traces (FAST'25): JSON lines of timestamp (ms),
//	            input_length, output_length and hash_ids (the prompt's
//	            prefix-cache blocks of 512 tokens)
//	burstgpt    BurstGPT's CSV: the columns Timestamp (seconds), Model,
//	            Request tokens, Response tokens, Total tokens, Log Type;
//	            Timestamp, Request tokens and Response tokens are read
//	llmmetrics  a run file of llmmetrics (JSONL records): the send time and
//	            the usage (prompt and completion tokens) of each ok request
//	            that was not a preflight request, in order of send time;
//	            a request production made without streaming (its answer's
//	            text came at once) is marked Unstreamed, to be replayed so
//
// A trace is read whole, or not at all: rows out of time order (a run
// file's aside, which is written as requests end and is put in send
// order), a negative time, a missing column or key, a field that is not a
// number, or a length of zero stops reading with an *Error naming the
// file, the line and the field. Trace.Replay cuts a window, scales time
// and lengths, caps the lengths a server cannot take (counting each row
// capped) and returns the drive.Requests to send.
package trace
