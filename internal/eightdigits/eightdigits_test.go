package eightdigits

import (
	"encoding/binary"
	"math/rand/v2"
	"strconv"
	"testing"
)

// Valid and Parse agree with strconv on every kind of eight bytes:
// digits, and digits with one byte just outside '0'–'9'.
func TestEightDigits(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for range 100_000 {
		var b [8]byte
		for i := range b {
			b[i] = '0' + byte(rng.IntN(10))
		}
		if rng.IntN(3) == 0 {
			b[rng.IntN(8)] = []byte{'/', ':', ' ', 0, 0xff, '.', 'e', '-'}[rng.IntN(8)]
		}
		v := binary.LittleEndian.Uint64(b[:])
		want, err := strconv.ParseUint(string(b[:]), 10, 64)
		if Valid(v) != (err == nil) {
			t.Fatalf("Valid(%q) = %v", b, Valid(v))
		}
		if err == nil && Parse(v) != want {
			t.Fatalf("Parse(%q) = %d, want %d", b, Parse(v), want)
		}
	}
}
