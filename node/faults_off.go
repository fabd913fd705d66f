//go:build !failpoints

package node

import "github.com/libp2p/go-libp2p"

// faultInjector is the no-op twin of the partition injector in faults.go,
// which exists only under the build tag "failpoints": a release binary has
// no connection gater and no debug route.
type faultInjector struct{}

func (*faultInjector) hostOptions() []libp2p.Option { return nil }
