//go:build unix && !linux

package proc

import (
	"os/exec"
	"syscall"
)

var errNoProcess = syscall.ESRCH

// setup puts cmd in a process group of its own. There is no parent-death
// signal or PID namespace outside Linux.
func setup(cmd *exec.Cmd, _ bool) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = killGroup(cmd)
}

func namespaceRefused(error) bool { return false }

func signalGroup(pid int) error { return syscall.Kill(-pid, syscall.SIGKILL) }
