// Package plural says a count of things in English: "1 request",
// "3 requests", for the messages of the packages and the command.
package plural

import "strconv"

// Of says n things, thing being the singular of a noun whose plural takes
// an s: Of(1, "request") is "1 request", Of(3, "request") "3 requests".
func Of(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return strconv.Itoa(n) + " " + thing + "s"
}
