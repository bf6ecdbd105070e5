//go:build unix

// Package cputime reads the CPU time the process has used, for the
// benchmarks' cpu-ns figures: on a shared machine it is steadier than the
// wall clock, since time the scheduler gives to other processes does not
// count.
package cputime

import (
	"syscall"
	"time"
)

// Process returns the CPU time the process has used, user and system, all
// threads (the garbage collector's too), or 0 where it cannot be read.
func Process() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
