//go:build race || nohugepage

package hugepage

// builtOff is true: the race detector, or the build tag nohugepage, turns
// the package off.
const builtOff = true
