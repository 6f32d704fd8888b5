// Package cpucache tells the size of the level-1 data cache of the
// processor a program runs on, and how many of the processor's threads
// share it, where the system says (Linux's sysfs). The engine sizes the
// tables it updates at random while streaming through a sample to fit
// there, rather than to one processor's figures: a table fitted to a 48
// KiB cache of one thread (an AMD EPYC of 2024) overflows a 32 KiB cache
// shared by two hyperthreads (an Intel Xeon whose two virtual cores are
// one physical core, a common small cloud machine).
package cpucache

// L1D returns the bytes of the level-1 data cache of the first processor
// and the number of logical processors that share it; 0, 0 where the
// system does not say.
func L1D() (bytes, sharers int) { return l1d() }
