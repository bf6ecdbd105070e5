package etcdcluster

import (
	"os/exec"
	"syscall"
)

// procAttr puts the member in its own process group, so that a kill
// reaches anything it starts, and has the kernel kill it if the test
// binary dies first (a timeout panic skips cleanups).
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// kill sends SIGKILL to the member's process group.
func kill(cmd *exec.Cmd) {
	if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); err != nil {
		cmd.Process.Kill()
	}
}
