package server

import (
	"testing"

	"github.com/llmmetrics/llmmetrics/internal/doccheck"
)

// Every exported function and method has a doc comment and an Example.
func TestEveryFunctionHasExample(t *testing.T) {
	missing, err := doccheck.Missing(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range missing {
		t.Error(m)
	}
}
