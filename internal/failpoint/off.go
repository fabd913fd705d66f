//go:build !failpoints

package failpoint

// Inject marks the failpoint name. Without the failpoints build tag it does
// nothing and is inlined away.
func Inject(name string) {}

// Enabled reports whether this binary was built with failpoints.
const Enabled = false
