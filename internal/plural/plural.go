// Package plural says a count of things in English: "1 request",
// "3 requests", and a list of choices, "a, b or c", for the messages of
// the packages and the command.
package plural

import (
	"strconv"
	"strings"
)

// Of says n things, thing being the singular of a noun whose plural takes
// an s: Of(1, "request") is "1 request", Of(3, "request") "3 requests".
func Of(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return strconv.Itoa(n) + " " + thing + "s"
}

// Or says a list of choices: "a, b or c", "a or b", "a"; "" for none.
func Or(xs []string) string {
	if len(xs) < 2 {
		return strings.Join(xs, "")
	}
	return strings.Join(xs[:len(xs)-1], ", ") + " or " + xs[len(xs)-1]
}
