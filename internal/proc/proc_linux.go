package proc

import (
	"errors"
	"os"
	"os/exec"
	"syscall"
)

var errNoProcess = syscall.ESRCH

// setup puts cmd in a process group of its own that dies with this thread,
// in a new PID namespace when isolate is set.
func setup(cmd *exec.Cmd, isolate bool) {
	attr := &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if isolate {
		attr.Cloneflags = syscall.CLONE_NEWPID
		if os.Geteuid() != 0 {
			// Without CAP_SYS_ADMIN a PID namespace needs a user namespace
			// of its own; map only our ids, so the program keeps exactly
			// the identity and rights it would have had.
			attr.Cloneflags |= syscall.CLONE_NEWUSER
			attr.UidMappings = []syscall.SysProcIDMap{{ContainerID: os.Getuid(), HostID: os.Getuid(), Size: 1}}
			attr.GidMappings = []syscall.SysProcIDMap{{ContainerID: os.Getgid(), HostID: os.Getgid(), Size: 1}}
			attr.GidMappingsEnableSetgroups = false
		}
	}
	cmd.SysProcAttr = attr
	cmd.Cancel = killGroup(cmd)
}

// namespaceRefused reports whether a failed start may be the kernel
// refusing the namespaces (clone or the id maps); a start without them is
// then worth one try. An error of the program's own (not found, not
// executable) fails that try the same way.
func namespaceRefused(err error) bool {
	for _, e := range []error{syscall.EPERM, syscall.EACCES, syscall.EINVAL, syscall.ENOSPC, syscall.EUSERS} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

func signalGroup(pid int) error { return syscall.Kill(-pid, syscall.SIGKILL) }
