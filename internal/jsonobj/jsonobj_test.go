package jsonobj

import (
	"encoding/json"
	"testing"
)

// The keys keep their order, unlike a map's, and values nest.
func TestObject(t *testing.T) {
	b, err := json.Marshal(Object{{"z", 1}, {"a", nil}, {"m", Object{{"y", "x"}, {"b", []int{2}}}}})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"z":1,"a":null,"m":{"y":"x","b":[2]}}`; string(b) != want {
		t.Errorf("got %s, want %s", b, want)
	}
	if _, err := json.Marshal(Object{{"f", func() {}}}); err == nil {
		t.Error("a value encoding/json cannot write is an error")
	}
}
