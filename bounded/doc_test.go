package bounded

import (
	"testing"

	"github.com/llmmetrics/llmmetrics/internal/doccheck"
)

// Every exported function and method has a doc comment and an Example.
func TestEveryFunctionHasExample(t *testing.T) { doccheck.Test(t, ".") }
