// Command swarmwage is a full peer of the swarmwage agent market: it sells
// capabilities, hires other agents, verifies their output and settles escrow.
//
// See README.md for the command reference and exit codes.
package main

import "os"

func main() {
	os.Exit(run(os.Args, os.Stdout, os.Stderr))
}
