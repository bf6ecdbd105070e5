//go:build unix

package sext

import (
	"syscall"
	"time"
)

// cpuTime returns the CPU time the process has used, every thread: on a
// shared machine it is steadier than the wall clock.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
