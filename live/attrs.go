package live

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/llmmetrics/llmmetrics/observe"
)

// The attribute names every export uses, as OpenTelemetry writes them;
// Prometheus labels are the same names with dots as underscores
// (promName), as OpenTelemetry's Prometheus exporter writes them, so that
// one query reads both kinds of replica.
const (
	attrOperation     = "gen_ai.operation.name"
	attrProvider      = "gen_ai.provider.name"
	attrRequestModel  = "gen_ai.request.model"
	attrResponseModel = "gen_ai.response.model"
	attrAddress       = "server.address"
	attrPort          = "server.port"
	attrErrorType     = "error.type"
	attrTokenType     = "gen_ai.token.type"
	attrOutcome       = "llmmetrics.outcome"
	attrBasis         = "llmmetrics.basis"
	attrReason        = "llmmetrics.reason"
)

// keyAttrs are the attributes of a Key, in Key's order.
var keyAttrs = []string{attrOperation, attrProvider, attrRequestModel, attrResponseModel, attrAddress, attrPort}

// promName is an attribute's Prometheus label name.
func promName(attr string) string { return strings.ReplaceAll(attr, ".", "_") }

// promNames returns the label names of attributes.
func promNames(attrs ...string) []string {
	out := make([]string, len(attrs))
	for i, a := range attrs {
		out[i] = promName(a)
	}
	return out
}

// Other is the label value that stands for values beyond a limit: the
// label set of the observations beyond Options.MaxLabelSets, and an error
// type beyond the recorder's limit of distinct ones, as the semantic
// conventions' error.type names an error with no more specific value.
const Other = "_OTHER"

// MaxLabelLength is the longest label value exported, in bytes: a longer
// one is cut at a character boundary.
const MaxLabelLength = 128

// cleanLabel returns s as a label value every exporter accepts: valid
// UTF-8 (each invalid byte sequence replaced by U+FFFD) of at most
// MaxLabelLength bytes. A value already so is returned as it is, without
// allocating.
func cleanLabel(s string) string { return capText(s, MaxLabelLength) }

// capText returns s as valid UTF-8 (each invalid byte sequence replaced by
// U+FFFD) of at most n bytes, cut at a character boundary. A text already
// so is returned as it is, without allocating.
func capText(s string, n int) string {
	if len(s) <= n && utf8.ValidString(s) {
		return s
	}
	s = strings.ToValidUTF8(s, "\uFFFD")
	if len(s) > n {
		cut := n
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut]
	}
	return s
}

// clean returns the key with every value a valid label value.
func (k Key) clean() Key {
	k.Operation, k.Provider = cleanLabel(k.Operation), cleanLabel(k.Provider)
	k.Model, k.ResponseModel, k.Endpoint = cleanLabel(k.Model), cleanLabel(k.ResponseModel), cleanLabel(k.Endpoint)
	if k.Port < 0 || k.Port > 65535 {
		k.Port = 0
	}
	return k
}

// labels returns the key's Prometheus label values, in keyAttrs' order.
func (k Key) labels() []string {
	port := ""
	if k.Port > 0 {
		port = strconv.Itoa(k.Port)
	}
	return []string{k.Operation, k.Provider, k.Model, k.ResponseModel, k.Endpoint, port}
}

// KeyOf returns the label set of a Transport's result: its operation,
// provider, request and response models, and server address and port.
func KeyOf(r *observe.Result) Key {
	return Key{Operation: r.Operation, Provider: r.Provider, Model: r.RequestModel, ResponseModel: r.ResponseModel,
		Endpoint: r.ServerAddress, Port: r.ServerPort}
}
