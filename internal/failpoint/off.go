//go:build !failpoints

package failpoint

// Inject marks the failpoint name. Without the failpoints build tag it does
// nothing and is inlined away.
func Inject(name string) {}

// Value returns a value set for the failpoint name. Without the failpoints
// build tag there is none.
func Value(name string) (int64, bool) { return 0, false }

// Enabled reports whether this binary was built with failpoints.
const Enabled = false
