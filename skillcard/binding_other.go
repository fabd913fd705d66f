//go:build !unix

package skillcard

import "os/exec"

// killProcessGroup is a no-op where process groups are not available:
// exec.CommandContext kills the direct child only.
func killProcessGroup(*exec.Cmd) {}
