// Package proc starts the programs a seller runs for strangers (exec
// handlers and SkillCard cli bindings) so that none of them outlives its
// job or the node that started it.
//
// Run starts a program in a process group of its own and, when the
// command's context ends (job deadline, cancellation), kills the whole group
// with SIGKILL, so a script's children go with it. On Linux it also:
//
//   - sets the parent-death signal (SysProcAttr.Pdeathsig) to SIGKILL, so
//     the program dies with the node even when the node itself is killed
//     with SIGKILL and runs no cleanup;
//   - starts the program in a new PID namespace (inside a user namespace that
//     maps only the node's own uid and gid when the node is not root), where
//     it is process 1: when it dies the kernel kills every process of the
//     namespace, including grandchildren that left its process group with
//     setsid or double forks. Where the kernel refuses namespaces (EPERM
//     and the like: unprivileged user namespaces disabled, limits reached)
//     the program runs without one; the process group and Pdeathsig still
//     hold, but a descendant that left the group can then outlive it. As
//     process 1 of its namespace the program does not die of signals that
//     it or its children send it without a handler for them (a shell
//     script's kill $$ does nothing); the node's SIGKILL and faults such as
//     SIGSEGV still kill it.
//
// The thread caveat: Linux sends the parent-death signal when the OS thread
// that created the child exits, not when the process does, and the Go
// runtime ends a thread when a goroutine exits while locked to it. A child
// started from a thread that another goroutine later locks and abandons
// would be killed early, so Run locks its goroutine to its OS thread from
// Start until Wait returns: the thread is the child's for the child's whole
// life, and each running program holds one OS thread.
//
// One more caveat: Go's check that the parent did not die before Pdeathsig
// was set cannot work for the first process of a new PID namespace (its
// parent is outside it), so a node killed in the microseconds between fork
// and exec may leave that program running.
package proc

import (
	"errors"
	"os"
	"os/exec"
	"runtime"
)

// Run starts the command newCmd returns and waits for it, as exec.Cmd.Run
// does, in the setting the package doc describes. newCmd must build the
// command with exec.CommandContext (cancelling the context kills the
// process group) and may be called twice: when the kernel refuses a
// namespace, Run starts a fresh command without one. Run sets the
// command's SysProcAttr and Cancel; newCmd must not.
func Run(newCmd func() *exec.Cmd) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	cmd := newCmd()
	setup(cmd, true)
	err := cmd.Start()
	if err != nil && namespaceRefused(err) {
		cmd = newCmd()
		setup(cmd, false)
		err = cmd.Start()
	}
	if err != nil {
		return err
	}
	return cmd.Wait()
}

// killGroup is cmd.Cancel: SIGKILL to the process group. A group that is
// gone already is no error for exec (os.ErrProcessDone).
func killGroup(cmd *exec.Cmd) func() error {
	return func() error {
		err := signalGroup(cmd.Process.Pid)
		if errors.Is(err, errNoProcess) {
			return os.ErrProcessDone
		}
		return err
	}
}
