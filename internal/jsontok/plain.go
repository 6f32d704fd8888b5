package jsontok

// The plain twins of the functions that read several bytes at a time: a
// byte at a time, as the JSON grammar says it. They are the specification
// the fuzz tests hold the fast ones to (FuzzStringTwins, FuzzSpaceTwins),
// byte for byte, on every input.

// stringPlain is String read a byte at a time.
func stringPlain(b []byte, i int) (end int, escaped, nonASCII bool, err error) {
	for i++; i < len(b); {
		c := b[i]
		switch {
		case c == '\\':
			escaped = true
			i += 2
			continue
		case c == '"':
			return i + 1, escaped, nonASCII, nil
		case c < 0x20:
			return i, escaped, nonASCII, ErrControl
		case c >= 0x80:
			nonASCII = true
		}
		i++
	}
	return i, escaped, nonASCII, ErrEnd
}

// spacePlain is Space with each byte compared to the four kinds of white
// space.
func spacePlain(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\n' || b[i] == '\t' || b[i] == '\r') {
		i++
	}
	return i
}
