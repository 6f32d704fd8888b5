package live

import (
	"strconv"
	"strings"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/observe"
)

// ErrorTypeOf returns the error.type of a failed result as the semantic
// conventions ask: the HTTP status code for an HTTP error ("429", "500"),
// "timeout" for a deadline, "cancelled" for a call its caller cancelled,
// the server's own type for an error it reported inside a stream. A
// failure with no status code, which the conventions let a component name
// with a low-cardinality identifier of its own, is the first of these
// whose Go error (net, net/http, crypto/tls: its text, the result's
// Record.Message) says it:
//
//	tls_error           the TLS handshake failed: a certificate not trusted,
//	                    a server that does not speak TLS
//	dns_error           the server's name was not resolved
//	connection_refused  nothing listens at the server's address and port
//	connection_reset    the server reset the connection (or a write found
//	                    it gone: a broken pipe), before or during the response
//	unexpected_eof      the response was cut off: the connection closed
//	                    before the body's end (an upstream killed mid-stream)
//	connection_closed   the server closed the connection before any
//	                    response: an EOF, as on a kept-alive connection it
//	                    had just closed
//
// and Other otherwise. It returns "" for a result that did not fail.
func ErrorTypeOf(r *observe.Result) string {
	switch r.Record.Status {
	case llmmetrics.StatusOK:
		return ""
	case llmmetrics.StatusTimeout:
		return "timeout"
	case llmmetrics.StatusCancelled:
		return "cancelled"
	}
	switch {
	case r.HTTPStatus != 0 && r.HTTPStatus != 200:
		return strconv.Itoa(r.HTTPStatus)
	case r.ErrorType != "":
		return r.ErrorType
	}
	return transportErrorType(r.Record.Message)
}

// transportErrors name the failures without a status code, each by the
// texts of the Go errors that say it, in the order they are tried: a
// DNS lookup refused by its server says "connection refused" too.
var transportErrors = []struct {
	typ   string
	match func(msg string) bool
}{
	{"tls_error", containsAny("tls: ", "x509: ", "server gave HTTP response to HTTPS client")},
	{"dns_error", func(msg string) bool {
		return strings.HasPrefix(msg, "lookup ") || strings.Contains(msg, ": lookup ") || strings.Contains(msg, "no such host")
	}},
	{"connection_refused", containsAny("connection refused")},
	{"connection_reset", containsAny("connection reset by peer", "broken pipe")},
	{"unexpected_eof", containsAny("unexpected EOF")},
	{"connection_closed", func(msg string) bool {
		return msg == "EOF" || strings.HasSuffix(msg, ": EOF") || strings.Contains(msg, "server closed idle connection")
	}},
}

// containsAny returns a match of the messages that hold one of texts.
func containsAny(texts ...string) func(string) bool {
	return func(msg string) bool {
		for _, t := range texts {
			if strings.Contains(msg, t) {
				return true
			}
		}
		return false
	}
}

// transportErrorType returns the error.type of a failure without a status
// code, from its message: one of transportErrors', or Other.
func transportErrorType(msg string) string {
	for _, e := range transportErrors {
		if e.match(msg) {
			return e.typ
		}
	}
	return Other
}
