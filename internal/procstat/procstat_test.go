package procstat

import "testing"

// TestCPULineCountsStealApart checks that the machine's busy time leaves out idle, iowait, the
// time stolen by the hypervisor (reported apart) and guest time (already in user and nice).
func TestCPULineCountsStealApart(t *testing.T) {
	//                       user nice system idle iowait irq softirq steal guest guest_nice
	busy, steal := CPULine("cpu  100 2 30 5000 40 0 5 70 9 1")
	if busy != 137*tick || steal != 70*tick {
		t.Errorf("busy %s, steal %s; want %s, %s", busy, steal, 137*tick, 70*tick)
	}
	if busy, steal := CPULine("intr 1 2 3"); busy != 0 || steal != 0 {
		t.Errorf("a line that is not cpu's: busy %s, steal %s; want 0, 0", busy, steal)
	}
}
