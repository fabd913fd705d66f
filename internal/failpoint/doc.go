// Package failpoint injects faults at named points of the node's code, for
// the fault-injection suite (package faults). It is compiled in only under
// the build tag "failpoints":
//
//	go build -tags failpoints ./cmd/swarmwage
//
// Without the tag Inject is an empty function that the compiler inlines
// away, so a release binary carries no trace of it and no way to trigger it.
//
// Under the tag, Inject reads the environment variable SWARMWAGE_FAILPOINTS
// once (at the first call; a malformed value stops the process at start-up
// with exit code 2 and a message naming the bad term). The value is a
// comma-separated list of name=action terms:
//
//	SWARMWAGE_FAILPOINTS='seller/after-deliver=kill,buyer/after-lock=kill@3,x=sleep(200)'
//
// Actions:
//
//	kill       SIGKILL this process at the point's first hit: no deferred
//	           code runs, nothing is flushed, like a power cut for this
//	           process (the kernel still has what was written).
//	kill@N     SIGKILL at the Nth hit (N >= 1); the hits before pass.
//	sleep(MS)  sleep MS milliseconds at every hit (0 <= MS <= 3600000), to
//	           hold a point open while the test injects another fault.
//	set(N)     give the point the whole number N: code that asks with
//	           Value(name) uses N instead of its own figure (a wrong price).
//
// Before it acts, a point writes one line to stderr,
//
//	failpoint: <name>: <action> (hit <n>)
//
// so that a test can tell that the fault it asked for happened. Names are
// the contract between the code and the suite: "<side>/<when>", such as
// "buyer/after-lock"; the list of names is in the faults package doc.
//
// The registry is process-wide state by nature (a point is hit from
// anywhere in the process), which is why it exists only under the tag.
package failpoint

// EnvVar is the environment variable that configures the failpoints.
const EnvVar = "SWARMWAGE_FAILPOINTS"
