// Package procstat reads the machine's CPU time from Linux's /proc/stat, for the benchmarks: how
// much of it was this machine's work and how much the hypervisor stole.
package procstat

import (
	"os"
	"strconv"
	"strings"
	"time"
)

// tick is a /proc/stat unit: USER_HZ is 100 on Linux.
const tick = 10 * time.Millisecond

// Machine is the machine's non-idle CPU time since boot and the time stolen from it (the time
// the hypervisor ran other machines while this one had work); zero where /proc/stat cannot be
// read (not Linux).
func Machine() (busy, steal time.Duration) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, 0
	}
	line, _, _ := strings.Cut(string(b), "\n")
	return CPULine(line)
}

// CPULine reads /proc/stat's first line: "cpu" user nice system idle iowait irq softirq steal
// guest guest_nice, in ticks. Busy leaves out idle and iowait, steal (no work of this
// machine's), and guest and guest_nice (already counted in user and nice).
func CPULine(line string) (busy, steal time.Duration) {
	f := strings.Fields(line)
	if len(f) < 2 || f[0] != "cpu" {
		return 0, 0
	}
	for i, v := range f[1:] {
		n, _ := strconv.ParseInt(v, 10, 64)
		switch i {
		case 3, 4, 8, 9:
		case 7:
			steal = time.Duration(n) * tick
		default:
			busy += time.Duration(n) * tick
		}
	}
	return busy, steal
}
