package llmmetrics

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/llmmetrics/llmmetrics/internal/jsontok"
)

// This file parses one line of the JSONL format. It is written by hand,
// rather than with encoding/json, because the format is stricter than
// encoding/json's decoding: keys match exactly (encoding/json folds case),
// a repeated key is an error (encoding/json keeps the last), nothing may
// follow the object, whole numbers must be written as such and fit their
// field, and every error names the key and the column.

// jsonKey identifies a key of the JSONL format.
type jsonKey uint8

const (
	keyID jsonKey = iota
	keyStatus
	keyMessage
	keySent
	keyFirstText
	keyLastText
	keyChunks
	keyChunkTokens
	keyPromptTokens
	keyCompletionTokens
	keyMaxTokens
	keyWarmup
	keyScheduled
	keyWait
	keyFirstAnswer
	keyReasoning
	keyPreflight
	nKeys
)

var jsonKeys = [nKeys]string{
	"id", "status", "message", "sent_ns", "first_text_ns", "last_text_ns",
	"chunk_arrivals_ns", "chunk_tokens", "prompt_tokens", "completion_tokens", "max_tokens",
	"warmup", "scheduled_ns", "wait_ns", "first_answer_ns", "reasoning_tokens", "preflight",
}

// lineParser reads one JSON object held in b.
type lineParser struct {
	b    []byte
	i    int
	key  string // the key whose value is being read, for errors
	seen [nKeys]bool
	// arena, when not nil, holds the chunk arrivals of the records parsed
	// one after another: each record's Chunks is a slice of it (its
	// capacity capped), so that reading allocates a slab per many records
	// rather than a growing slice per record.
	arena *[]time.Duration
	// The keys that other keys' rules need, as read: a value and whether
	// one was given (null is the key's absence).
	first, last              time.Duration
	completion               int
	hasFirst, hasLast, hasCn bool
}

// arenaSlab is the length of a fresh arena slab.
const arenaSlab = 1 << 16

// fail returns an error at the current key (or, outside any key, at the
// current byte) wrapping sentinel.
func (p *lineParser) fail(sentinel error, format string, args ...any) *RecordError {
	e := &RecordError{Index: -1, Field: p.key, Column: p.i + 1, Err: sentinel}
	if format != "" {
		e.Err = fmt.Errorf("%w: %s", sentinel, fmt.Sprintf(format, args...))
	}
	return e
}

func (p *lineParser) ws() { p.i = jsontok.Space(p.b, p.i) }

// next returns the next byte that is not white space, or 0 at the end.
func (p *lineParser) next() byte {
	p.ws()
	if p.i < len(p.b) {
		return p.b[p.i]
	}
	return 0
}

func (p *lineParser) expect(c byte) *RecordError {
	switch got := p.next(); got {
	case c:
		p.i++
		return nil
	case 0:
		return p.fail(ErrSyntax, "the line ends where %q is wanted", c)
	default:
		return p.fail(ErrSyntax, "found %q, want %q", got, c)
	}
}

// str reads a JSON string. Plain ASCII without escapes is taken as it is;
// anything else is decoded by encoding/json, which checks escapes and
// UTF-8.
func (p *lineParser) str() (string, *RecordError) {
	b, err := p.rawStr()
	return string(b), err
}

// rawStr reads a JSON string, as str does, and returns its bytes without
// a copy when it is plain (in the line), decoded otherwise.
func (p *lineParser) rawStr() ([]byte, *RecordError) {
	if err := p.expect('"'); err != nil {
		return nil, err
	}
	start := p.i - 1
	end, escaped, nonASCII, err := jsontok.String(p.b, start)
	p.i = end
	switch err {
	case nil:
	case jsontok.ErrControl:
		return nil, p.fail(ErrSyntax, "control character in a string")
	default:
		return nil, p.fail(ErrSyntax, "the line ends inside a string")
	}
	if !escaped && !nonASCII {
		return p.b[start+1 : end-1], nil
	}
	var s string
	if err := json.Unmarshal(p.b[start:end], &s); err != nil {
		p.i = start
		return nil, p.fail(ErrSyntax, "bad string: %v", err)
	}
	return []byte(s), nil
}

// literal consumes word if it comes next.
func (p *lineParser) literal(word string) bool {
	p.ws()
	if jsontok.Literal(p.b, p.i, word) {
		p.i += len(word)
		return true
	}
	return false
}

// client returns the record's client-side facts, made on first use.
func client(rec *Record) *ClientSide {
	if rec.Client == nil {
		rec.Client = &ClientSide{}
	}
	return rec.Client
}

// null consumes a null if it comes next.
func (p *lineParser) null() bool {
	if p.next() == 'n' && jsontok.Literal(p.b, p.i, "null") {
		p.i += 4
		return true
	}
	return false
}

// int reads a whole number that lies in [lo, hi]. A fraction, an exponent,
// a leading zero or a sign other than a leading '-' is a syntax error; a
// whole number outside the range is ErrOutOfRange.
func (p *lineParser) int(lo, hi int64) (int64, *RecordError) {
	p.ws()
	start := p.i
	v, end, why := jsontok.Whole(p.b, p.i)
	if why == jsontok.WholeOK && v >= lo && v <= hi {
		p.i = end
		return v, nil
	}
	text := p.b[start:end]
	switch why {
	case jsontok.NoDigits:
		return 0, p.fail(ErrSyntax, "want a whole number")
	case jsontok.LeadingZero:
		return 0, p.fail(ErrSyntax, "%s: a leading zero", text)
	case jsontok.Fraction:
		return 0, p.fail(ErrSyntax, "want a whole number, without a fraction or an exponent")
	}
	return 0, p.fail(ErrOutOfRange, "%s is outside [%d, %d]", text, lo, hi)
}

// arrivals reads an array of chunk arrivals onto the end of the arena a,
// as ints does (without a call per value), and returns the arena and where
// the array's values begin in it. When a is full it moves on to a fresh
// slab, carrying the array's values read so far.
func (p *lineParser) arrivals(a []time.Duration) ([]time.Duration, int, *RecordError) {
	start := len(a)
	if empty, err := p.openArray(); empty || err != nil {
		return a, start, err
	}
	for {
		if len(a) == cap(a) {
			slab := make([]time.Duration, len(a)-start, max(arenaSlab, 2*(len(a)-start)))
			copy(slab, a[start:])
			a, start = slab, 0
		}
		// The common arrival first (see jsontok.ListUint); p.int reads
		// any other.
		u, end, ok := jsontok.ListUint(p.b, p.i, maxTime)
		p.i = end
		if !ok {
			n, err := p.int(-maxTime, maxTime)
			if err != nil {
				return a, start, err
			}
			u = uint64(n)
		}
		a = append(a, time.Duration(u))
		if closed, err := p.afterValue(); closed || err != nil {
			return a, start, err
		}
	}
}

// ints reads an array of whole numbers in [lo, hi], calling add with each.
func (p *lineParser) ints(lo, hi int64, add func(int64)) *RecordError {
	if empty, err := p.openArray(); empty || err != nil {
		return err
	}
	for {
		v, err := p.int(lo, hi)
		if err != nil {
			return err
		}
		add(v)
		if closed, err := p.afterValue(); closed || err != nil {
			return err
		}
	}
}

// openArray reads the '[' that opens an array, and the ']' that closes it
// at once when it is empty.
func (p *lineParser) openArray() (empty bool, err *RecordError) {
	if err := p.expect('['); err != nil {
		return false, err
	}
	if p.next() == ']' {
		p.i++
		return true, nil
	}
	return false, nil
}

// afterValue reads what follows a value in an array: ',' before another,
// or the ']' that closes it.
func (p *lineParser) afterValue() (closed bool, err *RecordError) {
	switch p.next() {
	case ',':
		p.i++
		return false, nil
	case ']':
		p.i++
		return true, nil
	case 0:
		return false, p.fail(ErrSyntax, "the line ends inside an array")
	default:
		return false, p.fail(ErrSyntax, "found %q, want ',' or ']'", p.b[p.i])
	}
}

func (p *lineParser) object() (rec Record, err *RecordError) {
	if err := p.expect('{'); err != nil {
		return rec, err
	}
	for n := 0; ; n++ {
		p.key = ""
		switch c := p.next(); {
		case c == '}' && n == 0:
			p.i++
		case n > 0 && c == ',':
			p.i++
			fallthrough
		case n == 0:
			if err := p.member(&rec); err != nil {
				return rec, err
			}
			continue
		case c == '}':
			p.i++
		case c == 0:
			return rec, p.fail(ErrSyntax, "the line ends inside the object")
		default:
			return rec, p.fail(ErrSyntax, "found %q, want ',' or '}'", c)
		}
		break
	}
	p.key = ""
	if p.next() != 0 {
		return rec, p.fail(ErrSyntax, "text after the JSON object: %q", clip(p.b[p.i:]))
	}
	return p.finish(rec)
}

// member reads one key and its value into rec.
func (p *lineParser) member(rec *Record) *RecordError {
	k, err := p.memberKey()
	if err != nil {
		return err
	}
	if p.null() {
		return nil // null is the key's absence
	}
	switch k {
	case keyStatus:
		s, err := p.rawStr()
		if err != nil {
			return err
		}
		st, serr := parseStatusBytes(s)
		if serr != nil {
			return p.fail(serr, "")
		}
		rec.Status = st
	case keyID, keyMessage:
		s, err := p.str()
		if err != nil {
			return err
		}
		if k == keyID {
			rec.ID = s
		} else {
			rec.Message = s
		}
	case keySent, keyFirstText, keyLastText:
		return p.timeMember(k, rec)
	case keyWarmup, keyPreflight:
		switch {
		case p.literal("true"):
			rec.Warmup = true // a preflight request is warm-up too: never measured
			if k == keyPreflight {
				rec.Preflight = true
			}
		case p.literal("false"):
		default:
			return p.fail(ErrSyntax, "want true or false")
		}
	case keyScheduled, keyWait, keyFirstAnswer, keyReasoning:
		return p.clientMember(k, rec)
	case keyChunks:
		return p.chunksMember(rec)
	case keyChunkTokens:
		var counts []int32
		if err := p.ints(-maxCount, maxCount, func(v int64) { counts = append(counts, int32(v)) }); err != nil {
			return err
		}
		if len(counts) > 0 {
			rec.ChunkTokens = counts
		}
	default:
		return p.countMember(k, rec)
	}
	return nil
}

// memberKey reads a member's key and the colon after it: a key of the
// format, not seen before on the line.
func (p *lineParser) memberKey() (jsonKey, *RecordError) {
	p.key = ""
	at := p.i
	name, err := p.rawStr()
	if err != nil {
		return 0, err
	}
	k := jsonKey(0)
	for k < nKeys && jsonKeys[k] != string(name) { // compared without a copy
		k++
	}
	if k == nKeys {
		p.key = string(name)
		p.i = at
		return 0, p.fail(ErrSyntax, "unknown key %q (keys are matched exactly)", p.key)
	}
	p.key = jsonKeys[k]
	if p.seen[k] {
		p.i = at
		return 0, p.fail(ErrSyntax, "key %q repeated", name)
	}
	p.seen[k] = true
	return k, p.expect(':')
}

// timeMember reads sent_ns, first_text_ns or last_text_ns.
func (p *lineParser) timeMember(k jsonKey, rec *Record) *RecordError {
	v, err := p.int(-maxTime, maxTime)
	if err != nil {
		return err
	}
	d := time.Duration(v)
	switch k {
	case keySent:
		rec.Sent = d
	case keyFirstText:
		p.first, p.hasFirst = d, true
	default:
		p.last, p.hasLast = d, true
	}
	return nil
}

// clientMember reads a member of the client's facts: the schedule, the
// wait, the first answer or the reasoning tokens.
func (p *lineParser) clientMember(k jsonKey, rec *Record) *RecordError {
	if k == keyReasoning {
		v, err := p.int(-maxCount, maxCount)
		if err != nil {
			return err
		}
		c := client(rec)
		c.ReasoningTokens, c.HasReasoning = int(v), true
		return nil
	}
	v, err := p.int(-maxTime, maxTime)
	if err != nil {
		return err
	}
	c := client(rec)
	switch k {
	case keyScheduled:
		c.Scheduled, c.HasSchedule = time.Duration(v), true
	case keyWait:
		c.Wait = time.Duration(v)
	default:
		c.FirstAnswer, c.HasAnswer = time.Duration(v), true
	}
	return nil
}

// chunksMember reads chunk_arrivals_ns, into the parser's arena when it
// has one.
func (p *lineParser) chunksMember(rec *Record) *RecordError {
	if p.arena == nil {
		chunks := make([]time.Duration, 0, 16)
		if err := p.ints(-maxTime, maxTime, func(v int64) { chunks = append(chunks, time.Duration(v)) }); err != nil {
			return err
		}
		if len(chunks) > 0 {
			rec.Chunks = chunks[:len(chunks):len(chunks)]
		}
		return nil
	}
	a, start, err := p.arrivals(*p.arena)
	*p.arena = a
	if err != nil {
		return err
	}
	if len(a) > start {
		rec.Chunks = a[start:len(a):len(a)]
	}
	return nil
}

// countMember reads prompt_tokens, max_tokens or completion_tokens.
func (p *lineParser) countMember(k jsonKey, rec *Record) *RecordError {
	v, err := p.int(-maxCount, maxCount)
	if err != nil {
		return err
	}
	n := int(v)
	switch k {
	case keyPromptTokens:
		rec.PromptTokens = n
	case keyMaxTokens:
		rec.MaxTokens = n
	default:
		p.completion, p.hasCn = n, true
	}
	return nil
}

// finish applies the format's rules that involve several keys.
func (p *lineParser) finish(rec Record) (Record, *RecordError) {
	missing := func(key, format string, args ...any) (Record, *RecordError) {
		return rec, &RecordError{Index: -1, Field: key, Err: fmt.Errorf("%w: %s", ErrMissingField, fmt.Sprintf(format, args...))}
	}
	if p.hasCn {
		rec.CompletionTokens = p.completion
	} else if rec.Status == StatusOK {
		rec.NoUsage = true // the server reported no count: n unknown, never guessed
	}
	if p.hasFirst {
		rec.FirstText = p.first
	}
	if p.hasLast {
		rec.LastText = p.last
	}
	if rec.Status == StatusOK && (rec.CompletionTokens > 0 || rec.NoUsage) && len(rec.Chunks) == 0 {
		what := "an ok record"
		if rec.NoUsage {
			what = "an ok record without completion_tokens"
		}
		if !p.hasFirst {
			return missing("first_text_ns", "%s needs chunk_arrivals_ns or first_text_ns and last_text_ns", what)
		}
		if !p.hasLast {
			return missing("last_text_ns", "%s needs chunk_arrivals_ns or first_text_ns and last_text_ns", what)
		}
	}
	return rec, nil
}

// clip shortens b for an error message.
func clip[T string | []byte](b T) string {
	if len(b) > 20 {
		return string(b[:20]) + "…"
	}
	return string(b)
}
