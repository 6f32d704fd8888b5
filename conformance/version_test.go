package conformance

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"testing"
)

// caseDigests pins each version of the kit to its cases: the SHA-256 of
// Cases() as JSON. A change to any case's inputs, options, figures or
// words without a new Version fails here.
var caseDigests = map[string]string{
	"1": "a6c49d017abc31403ba34ea7f036a82238d6fc1c9517f5d5e7454db1b4b77cb3",
	"2": "1729df7e607b9e677f426c1168482f35e23bc6e86c06679f0c464f505a126228",
	"3": "2f66e6a31902d4d016a580e569929578c82654a0ae9b305231deb29fd442f6bd",
}

func casesDigest(t *testing.T) string {
	t.Helper()
	b, err := json.Marshal(Cases())
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// The cases are those of their version.
func TestVersionPinsCases(t *testing.T) {
	got := casesDigest(t)
	want, ok := caseDigests[Version]
	if !ok || got != want {
		t.Errorf("conformance %s: the cases' digest is %s, the version's %q: a case changed, so Version changes (and caseDigests gets the new digest)", Version, got, want)
	}
}
