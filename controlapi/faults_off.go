//go:build !failpoints

package controlapi

import "net/http"

// registerFaults is the no-op twin of the partition route in faults.go,
// which exists only under the build tag "failpoints": a release binary has
// no debug route.
func (*Server) registerFaults(*http.ServeMux) {}
