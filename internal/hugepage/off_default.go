//go:build !race && !nohugepage

package hugepage

// builtOff is false: nothing in the build turns the package off.
const builtOff = false
