package llmmetrics

import "time"

// TTFT returns the time to first token of a successful request: from the
// send time to the arrival of the first text-bearing chunk,
//
//	TTFT = t_first_text − t_sent
//
// It returns a validation error for an invalid record and ErrNoText for a
// failed or zero-token request.
func (r *Record) TTFT() (time.Duration, error) {
	if err := r.checkText(); err != nil {
		return 0, err
	}
	return ttft(r), nil
}

func ttft(r *Record) time.Duration { return r.first() }
