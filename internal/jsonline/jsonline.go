// Package jsonline reads and writes one line of the root's JSONL format
// (see record, in write.go, for its keys and rules): one JSON object, read
// in place with internal/jsontok, and written with encoding/json. The
// reader is written by hand, rather than with encoding/json, because the
// format is stricter than encoding/json's decoding: keys match exactly
// (encoding/json folds case), a repeated key is an error (encoding/json
// keeps the last), nothing may follow the object, whole numbers must be
// written as such and fit their field, and every error names the key and
// the column.
//
// Its plain twin is encoding/json over the format's struct (record),
// which the root's round-trip and fuzz tests hold it to. The root turns a
// Line into a Record and applies the rules that involve several keys.
package jsonline

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/llmmetrics/llmmetrics/internal/jsontok"
)

// The bounds of the format's numbers: the root's MaxTime and MaxCount.
const (
	MaxTime  = 1 << 61
	MaxCount = math.MaxInt32
)

// key identifies a key of the format.
type key uint8

const (
	keyID key = iota
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
	keyCached
	keySession
	keyTurn
	keyOneBody
	nKeys
)

var keys = [nKeys]string{
	"id", "status", "message", "sent_ns", "first_text_ns", "last_text_ns",
	"chunk_arrivals_ns", "chunk_tokens", "prompt_tokens", "completion_tokens", "max_tokens",
	"warmup", "scheduled_ns", "wait_ns", "first_answer_ns", "reasoning_tokens", "preflight",
	"cached_prompt_tokens", "session", "turn", "one_body",
}

// A Line is what a line gives, key by key; a key that is absent or null
// leaves its field zero (and its Has… false).
type Line struct {
	ID, Message   string
	Status        uint8 // as Parser.Status read it
	Sent          time.Duration
	HasSent       bool
	First, Last   time.Duration
	HasFirst      bool
	HasLast       bool
	Chunks        []time.Duration // nil when empty
	ChunkTokens   []int32         // nil when empty
	Prompt        int
	Completion    int
	HasCompletion bool
	MaxTokens     int
	Warmup        bool // set by preflight too
	Preflight     bool
	HasClient     bool // one of Client's keys was given
	Client        Client
}

// Client is the client's facts, as the root's ClientSide holds them.
type Client struct {
	Scheduled          time.Duration
	HasSchedule        bool
	Wait               time.Duration
	NoWait             bool // a line with client facts but no wait_ns
	FirstAnswer        time.Duration
	HasAnswer          bool
	ReasoningTokens    int
	HasReasoning       bool
	CachedPromptTokens int
	HasCached          bool
	Session            string
	Turn               int
	OneBody            bool
}

// Kind is the kind of an Error: the root's sentinel it stands for.
type Kind uint8

const (
	Syntax     Kind = iota // the root's ErrSyntax
	OutOfRange             // the root's ErrOutOfRange
)

// An Error is why a line cannot be read: at a key (Key, "" outside any),
// at a column from 1, of a Kind with Detail, or Err when Parser.Status
// refused the status.
type Error struct {
	Key    string
	Column int
	Kind   Kind
	Detail string
	Err    error
}

// A Parser reads lines one after another. Its zero value, with Status
// set, is ready.
type Parser struct {
	// Status reads the bytes of a status.
	Status func([]byte) (uint8, error)
	// Arena, when not nil, holds the chunk arrivals of the lines parsed
	// one after another: each line's Chunks is a slice of it (its
	// capacity capped), so that reading allocates a slab per many lines
	// rather than a growing slice per line.
	Arena *[]time.Duration

	b    []byte
	i    int
	key  string // the key whose value is being read, for errors
	seen [nKeys]bool
	line Line
	err  Error
}

// arenaSlab is the length of a fresh arena slab.
const arenaSlab = 1 << 16

// Parse reads the JSON object b. The Line (whatever was read, on an error)
// and the Error are the parser's own, until the next call.
func (p *Parser) Parse(b []byte) (*Line, *Error) {
	p.b, p.i, p.key, p.seen, p.line = b, 0, "", [nKeys]bool{}, Line{}
	return &p.line, p.object(&p.line)
}

// fail returns an error at the current key (or, outside any key, at the
// current byte).
func (p *Parser) fail(kind Kind, format string, args ...any) *Error {
	p.err = Error{Key: p.key, Column: p.i + 1, Kind: kind, Detail: fmt.Sprintf(format, args...)}
	return &p.err
}

func (p *Parser) ws() { p.i = jsontok.Space(p.b, p.i) }

// next returns the next byte that is not white space, or 0 at the end.
func (p *Parser) next() byte {
	p.ws()
	if p.i < len(p.b) {
		return p.b[p.i]
	}
	return 0
}

func (p *Parser) expect(c byte) *Error {
	switch got := p.next(); got {
	case c:
		p.i++
		return nil
	case 0:
		return p.fail(Syntax, "the line ends where %q is wanted", c)
	default:
		return p.fail(Syntax, "found %q, want %q", got, c)
	}
}

// str reads a JSON string. Plain ASCII without escapes is taken as it is;
// anything else is decoded by encoding/json, which checks escapes and
// UTF-8.
func (p *Parser) str() (string, *Error) {
	b, err := p.rawStr()
	return string(b), err
}

// rawStr reads a JSON string, as str does, and returns its bytes without
// a copy when it is plain (in the line), decoded otherwise.
func (p *Parser) rawStr() ([]byte, *Error) {
	if err := p.expect('"'); err != nil {
		return nil, err
	}
	start := p.i - 1
	end, escaped, nonASCII, err := jsontok.String(p.b, start)
	p.i = end
	switch err {
	case nil:
	case jsontok.ErrControl:
		return nil, p.fail(Syntax, "control character in a string")
	default:
		return nil, p.fail(Syntax, "the line ends inside a string")
	}
	if !escaped && !nonASCII {
		return p.b[start+1 : end-1], nil
	}
	var s string
	if err := json.Unmarshal(p.b[start:end], &s); err != nil {
		p.i = start
		return nil, p.fail(Syntax, "bad string: %v", err)
	}
	return []byte(s), nil
}

// literal consumes word if it comes next.
func (p *Parser) literal(word string) bool {
	p.ws()
	if jsontok.Literal(p.b, p.i, word) {
		p.i += len(word)
		return true
	}
	return false
}

// null consumes a null if it comes next.
func (p *Parser) null() bool {
	if p.next() == 'n' && jsontok.Literal(p.b, p.i, "null") {
		p.i += 4
		return true
	}
	return false
}

// int reads a whole number that lies in [lo, hi]. A fraction, an exponent,
// a leading zero or a sign other than a leading '-' is a syntax error; a
// whole number outside the range is OutOfRange.
func (p *Parser) int(lo, hi int64) (int64, *Error) {
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
		return 0, p.fail(Syntax, "want a whole number")
	case jsontok.LeadingZero:
		return 0, p.fail(Syntax, "%s: a leading zero", text)
	case jsontok.Fraction:
		return 0, p.fail(Syntax, "want a whole number, without a fraction or an exponent")
	}
	return 0, p.fail(OutOfRange, "%s is outside [%d, %d]", text, lo, hi)
}

// arrivals reads an array of chunk arrivals onto the end of the arena a,
// as ints does (without a call per value), and returns the arena and where
// the array's values begin in it. When a is full it moves on to a fresh
// slab, carrying the array's values read so far.
func (p *Parser) arrivals(a []time.Duration) ([]time.Duration, int, *Error) {
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
		u, end, ok := jsontok.ListUint(p.b, p.i, MaxTime)
		p.i = end
		if !ok {
			n, err := p.int(-MaxTime, MaxTime)
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
func (p *Parser) ints(lo, hi int64, add func(int64)) *Error {
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
func (p *Parser) openArray() (empty bool, err *Error) {
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
func (p *Parser) afterValue() (closed bool, err *Error) {
	switch p.next() {
	case ',':
		p.i++
		return false, nil
	case ']':
		p.i++
		return true, nil
	case 0:
		return false, p.fail(Syntax, "the line ends inside an array")
	default:
		return false, p.fail(Syntax, "found %q, want ',' or ']'", p.b[p.i])
	}
}

func (p *Parser) object(l *Line) *Error {
	if err := p.expect('{'); err != nil {
		return err
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
			if err := p.member(l); err != nil {
				return err
			}
			continue
		case c == '}':
			p.i++
		case c == 0:
			return p.fail(Syntax, "the line ends inside the object")
		default:
			return p.fail(Syntax, "found %q, want ',' or '}'", c)
		}
		break
	}
	p.key = ""
	if p.next() != 0 {
		return p.fail(Syntax, "text after the JSON object: %q", clip(p.b[p.i:]))
	}
	l.Client.NoWait = l.HasClient && !p.seen[keyWait]
	return nil
}

// member reads one key and its value into l.
func (p *Parser) member(l *Line) *Error {
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
		st, serr := p.Status(s)
		if serr != nil {
			p.err = Error{Key: p.key, Column: p.i + 1, Err: serr}
			return &p.err
		}
		l.Status = st
	case keyID, keyMessage:
		s, err := p.str()
		if err != nil {
			return err
		}
		if k == keyID {
			l.ID = s
		} else {
			l.Message = s
		}
	case keySent, keyFirstText, keyLastText:
		return p.timeMember(k, l)
	case keyWarmup, keyPreflight, keyOneBody:
		switch {
		case p.literal("true"):
			switch k {
			case keyOneBody:
				l.HasClient, l.Client.OneBody = true, true
			case keyPreflight: // a preflight request is warm-up too: never measured
				l.Warmup, l.Preflight = true, true
			default:
				l.Warmup = true
			}
		case p.literal("false"):
		default:
			return p.fail(Syntax, "want true or false")
		}
	case keyScheduled, keyWait, keyFirstAnswer, keyReasoning, keyCached, keySession, keyTurn:
		return p.clientMember(k, l)
	case keyChunks:
		return p.chunksMember(l)
	case keyChunkTokens:
		var counts []int32
		if err := p.ints(-MaxCount, MaxCount, func(v int64) { counts = append(counts, int32(v)) }); err != nil {
			return err
		}
		if len(counts) > 0 {
			l.ChunkTokens = counts
		}
	default:
		return p.countMember(k, l)
	}
	return nil
}

// memberKey reads a member's key and the colon after it: a key of the
// format, not seen before on the line.
func (p *Parser) memberKey() (key, *Error) {
	p.key = ""
	at := p.i
	name, err := p.rawStr()
	if err != nil {
		return 0, err
	}
	k := key(0)
	for k < nKeys && keys[k] != string(name) { // compared without a copy
		k++
	}
	if k == nKeys {
		p.key = string(name)
		p.i = at
		return 0, p.fail(Syntax, "unknown key %q (keys are matched exactly)", p.key)
	}
	p.key = keys[k]
	if p.seen[k] {
		p.i = at
		return 0, p.fail(Syntax, "key %q repeated", name)
	}
	p.seen[k] = true
	return k, p.expect(':')
}

// timeMember reads sent_ns, first_text_ns or last_text_ns.
func (p *Parser) timeMember(k key, l *Line) *Error {
	v, err := p.int(-MaxTime, MaxTime)
	if err != nil {
		return err
	}
	d := time.Duration(v)
	switch k {
	case keySent:
		l.Sent, l.HasSent = d, true
	case keyFirstText:
		l.First, l.HasFirst = d, true
	default:
		l.Last, l.HasLast = d, true
	}
	return nil
}

// clientMember reads a member of the client's facts: the schedule, the
// wait, the first answer, the reasoning or cached tokens, the session or
// the turn.
func (p *Parser) clientMember(k key, l *Line) *Error {
	switch k {
	case keySession:
		s, err := p.str()
		if err != nil {
			return err
		}
		l.HasClient, l.Client.Session = true, s
		return nil
	case keyCached, keyTurn:
		v, err := p.int(0, MaxCount) // a count or a turn is never negative
		if err != nil {
			return err
		}
		l.HasClient = true
		if k == keyTurn {
			l.Client.Turn = int(v)
		} else {
			l.Client.CachedPromptTokens, l.Client.HasCached = int(v), true
		}
		return nil
	case keyReasoning:
		v, err := p.int(-MaxCount, MaxCount)
		if err != nil {
			return err
		}
		l.HasClient = true
		l.Client.ReasoningTokens, l.Client.HasReasoning = int(v), true
		return nil
	}
	v, err := p.int(-MaxTime, MaxTime)
	if err != nil {
		return err
	}
	l.HasClient = true
	c := &l.Client
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
func (p *Parser) chunksMember(l *Line) *Error {
	if p.Arena == nil {
		chunks := make([]time.Duration, 0, 16)
		if err := p.ints(-MaxTime, MaxTime, func(v int64) { chunks = append(chunks, time.Duration(v)) }); err != nil {
			return err
		}
		if len(chunks) > 0 {
			l.Chunks = chunks[:len(chunks):len(chunks)]
		}
		return nil
	}
	a, start, err := p.arrivals(*p.Arena)
	*p.Arena = a
	if err != nil {
		return err
	}
	if len(a) > start {
		l.Chunks = a[start:len(a):len(a)]
	}
	return nil
}

// countMember reads prompt_tokens, max_tokens or completion_tokens.
func (p *Parser) countMember(k key, l *Line) *Error {
	v, err := p.int(-MaxCount, MaxCount)
	if err != nil {
		return err
	}
	n := int(v)
	switch k {
	case keyPromptTokens:
		l.Prompt = n
	case keyMaxTokens:
		l.MaxTokens = n
	default:
		l.Completion, l.HasCompletion = n, true
	}
	return nil
}

// clip shortens b for an error message.
func clip(b []byte) string {
	if len(b) > 20 {
		return string(b[:20]) + "…"
	}
	return string(b)
}

// Unfinished reports whether t is the beginning of a JSON value that the
// input ends inside: no byte of it is wrong, but the value is not closed.
func Unfinished(t []byte) bool {
	var v json.RawMessage
	err := json.NewDecoder(bytes.NewReader(t)).Decode(&v)
	return errors.Is(err, io.ErrUnexpectedEOF)
}
