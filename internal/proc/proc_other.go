//go:build !unix

package proc

import (
	"errors"
	"os/exec"
)

var errNoProcess = errors.New("no such process")

// setup leaves cmd as it is: without process groups, cancellation kills
// the direct child only (exec.CommandContext's default).
func setup(*exec.Cmd, bool) {}

func namespaceRefused(error) bool { return false }

func signalGroup(int) error { return errors.ErrUnsupported }
