//go:build unix

package skillcard

import (
	"os/exec"
	"syscall"
)

// killProcessGroup puts the command in its own process group and makes
// cancellation kill the whole group, so a script's children die with it.
func killProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
