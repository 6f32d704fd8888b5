//go:build !race

package budget

// Race is whether the program is built with the race detector, under
// which memory is laid out otherwise and budgets do not hold.
const Race = false
