// Package eightdigits reads eight ASCII decimal digits at a time, for the
// number parsers of the readers.
package eightdigits

// Valid reports whether the eight bytes of v, read little-endian, are all
// ASCII digits.
func Valid(v uint64) bool {
	return (v&0xF0F0F0F0F0F0F0F0)|(((v+0x0606060606060606)&0xF0F0F0F0F0F0F0F0)>>4) == 0x3333333333333333
}

// Parse returns the number written by eight ASCII digits, the first
// in the lowest byte of v, with three multiplications instead of eight.
func Parse(v uint64) uint64 {
	const mask = 0x000000FF000000FF
	v -= 0x3030303030303030
	v = v*10 + v>>8 // pairs of digits
	return ((v&mask)*(100+1000000<<32) + (v>>16&mask)*(1+10000<<32)) >> 32
}
