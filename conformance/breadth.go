package conformance

import (
	_ "embed"
	"encoding/json"
)

// breadthJSON holds the generated breadth cases: random runs of mixed
// statuses, lengths, chunkings and ties, their expected figures computed
// by a deliberately plain reference in exact rational arithmetic
// (reference_test.go), apart from the library. `go test -run
// TestBreadthCases -update` writes it again; TestBreadthCases checks that
// it is what the reference gives.
//
//go:embed breadth.json
var breadthJSON []byte

// breadthCases returns the generated cases.
func breadthCases() []Case {
	var cs []Case
	if err := json.Unmarshal(breadthJSON, &cs); err != nil {
		panic("conformance: breadth.json: " + err.Error()) // embedded at build time; a test reads it
	}
	return cs
}
